@_spi(Internals) public import JWTKernel

/// The straightforward RFC 8259 reader the fast `JSONParser` is checked
/// against (`JSONReferenceTests`, `FuzzJSON`): one byte at a time, bounds-checked
/// array indexing, duplicate names found with a `Set` of decoded names, no
/// vector code, no name keys, no inlining tricks. Same rules as `JSONParser`:
/// UTF-8 per RFC 3629 (no overlongs, surrogates or code points past U+10FFFF),
/// escapes with paired surrogates, duplicate member names refused at every
/// depth, nesting limited to `maxDepth` (the top-level container is depth 1).
/// A test oracle, so not in the product (libjwtk.so.0, the JWTKernel module): it allocates. SPI, as the spans it reports are.
@_spi(Internals)
public struct JSONReferenceParser {
    /// A top-level member as `JSONParser.forEachTopLevelMember` reports it.
    public struct Member: Equatable, Sendable {
        public var name: JSONSpan
        public var value: JSONSpan

        public init(name: JSONSpan, value: JSONSpan) {
            self.name = name
            self.value = value
        }
    }

    private let bytes: [UInt8]
    private let maxDepth: Int
    private var i = 0

    public init(_ buffer: UnsafeRawBufferPointer, maxDepth: Int = JSONParser.defaultMaxDepth) {
        self.bytes = Array(buffer)
        self.maxDepth = maxDepth
    }

    /// The document's value, or nil if `JSONParser.parseDocument` must refuse it.
    public mutating func parseDocument() -> JSONSpan? {
        i = 0
        skipWhitespace()
        guard let v = value(depth: 0) else { return nil }
        skipWhitespace()
        return i == bytes.count ? v : nil
    }

    /// The top-level members of an object document in order, or nil if
    /// `JSONParser.forEachTopLevelMember` must refuse the document.
    public mutating func topLevelMembers() -> [Member]? {
        i = 0
        skipWhitespace()
        guard i < bytes.count, bytes[i] == UInt8(ascii: "{") else { return nil }
        var members: [Member] = []
        guard object(depth: 1, &members) != nil else { return nil }
        skipWhitespace()
        return i == bytes.count ? members : nil
    }

    private mutating func skipWhitespace() {
        while i < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[i]) { i += 1 }
    }

    private mutating func value(depth: Int) -> JSONSpan? {
        guard i < bytes.count else { return nil }
        let start = i
        switch bytes[i] {
        case UInt8(ascii: "\""): return string()?.span
        case UInt8(ascii: "{"):
            var ignored: [Member] = []
            guard object(depth: depth + 1, &ignored) != nil else { return nil }
            return JSONSpan(start: start, end: i, kind: .object)
        case UInt8(ascii: "["):
            guard depth + 1 <= maxDepth else { return nil }
            i += 1
            skipWhitespace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") {
                i += 1
                return JSONSpan(start: start, end: i, kind: .array)
            }
            while true {
                guard value(depth: depth + 1) != nil else { return nil }
                skipWhitespace()
                guard i < bytes.count else { return nil }
                if bytes[i] == UInt8(ascii: ",") {
                    i += 1
                    skipWhitespace()
                } else if bytes[i] == UInt8(ascii: "]") {
                    i += 1
                    return JSONSpan(start: start, end: i, kind: .array)
                } else {
                    return nil
                }
            }
        case UInt8(ascii: "t"): return literal("true", .true)
        case UInt8(ascii: "f"): return literal("false", .false)
        case UInt8(ascii: "n"): return literal("null", .null)
        default: return number()
        }
    }

    /// `{...}` at `i`; appends each member to `members`.
    private mutating func object(depth: Int, _ members: inout [Member]) -> Void? {
        guard depth <= maxDepth else { return nil }
        var seen = Set<[UInt8]>()
        i += 1
        skipWhitespace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
            i += 1
            return ()
        }
        while true {
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\""), let name = string() else { return nil }
            guard seen.insert(name.decoded).inserted else { return nil }
            skipWhitespace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            skipWhitespace()
            guard let v = value(depth: depth) else { return nil }
            members.append(Member(name: name.span, value: v))
            skipWhitespace()
            guard i < bytes.count else { return nil }
            if bytes[i] == UInt8(ascii: ",") {
                i += 1
                skipWhitespace()
            } else if bytes[i] == UInt8(ascii: "}") {
                i += 1
                return ()
            } else {
                return nil
            }
        }
    }

    private mutating func literal(_ word: String, _ kind: JSONKind) -> JSONSpan? {
        let w = Array(word.utf8)
        guard i + w.count <= bytes.count, Array(bytes[i..<(i + w.count)]) == w else { return nil }
        i += w.count
        return JSONSpan(start: i - w.count, end: i, kind: kind)
    }

    private func isDigit(_ at: Int) -> Bool {
        at < bytes.count && bytes[at] >= UInt8(ascii: "0") && bytes[at] <= UInt8(ascii: "9")
    }

    private mutating func number() -> JSONSpan? {
        let start = i
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard isDigit(i) else { return nil }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
        } else {
            while isDigit(i) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard isDigit(i) else { return nil }
            while isDigit(i) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard isDigit(i) else { return nil }
            while isDigit(i) { i += 1 }
        }
        return JSONSpan(start: start, end: i, kind: .number)
    }

    private static let hexDigits = Array("0123456789abcdef0123456789ABCDEF".utf8)

    private func hex4(_ at: Int) -> UInt32? {
        guard at + 4 <= bytes.count else { return nil }
        var v: UInt32 = 0
        for b in bytes[at..<(at + 4)] {
            // Its own digit table, not the parser's: an oracle shares no code with what it checks.
            guard let d = Self.hexDigits.firstIndex(of: b) else { return nil }
            v = v * 16 + UInt32(d % 16)
        }
        return v
    }

    /// A string at `i` (on its opening quote): its span and its decoded bytes.
    private mutating func string() -> (span: JSONSpan, decoded: [UInt8])? {
        i += 1
        let start = i
        var decoded: [UInt8] = []
        var escaped = false
        while true {
            guard i < bytes.count else { return nil }
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                i += 1
                return (JSONSpan(start: start, end: i - 1, kind: .string, escaped: escaped), decoded)
            }
            if b < 0x20 { return nil }
            if b == UInt8(ascii: "\\") {
                escaped = true
                guard i + 1 < bytes.count else { return nil }
                let e = bytes[i + 1]
                i += 2
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(e)
                case UInt8(ascii: "b"): decoded.append(0x08)
                case UInt8(ascii: "f"): decoded.append(0x0C)
                case UInt8(ascii: "n"): decoded.append(0x0A)
                case UInt8(ascii: "r"): decoded.append(0x0D)
                case UInt8(ascii: "t"): decoded.append(0x09)
                case UInt8(ascii: "u"):
                    guard var scalar = hex4(i) else { return nil }
                    i += 4
                    if (0xDC00...0xDFFF).contains(scalar) { return nil }
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u"),
                            let low = hex4(i + 2), (0xDC00...0xDFFF).contains(low)
                        else { return nil }
                        i += 6
                        scalar = 0x10000 + (scalar - 0xD800) * 0x400 + (low - 0xDC00)
                    }
                    guard let u = Unicode.Scalar(scalar) else { return nil }
                    decoded += Array(String(Character(u)).utf8)
                default: return nil
                }
                continue
            }
            if b < 0x80 {
                decoded.append(b)
                i += 1
                continue
            }
            // RFC 3629 §4: the permitted range of the second byte depends on the first.
            let length: Int
            var second: ClosedRange<UInt8> = 0x80...0xBF
            switch b {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; second = 0xA0...0xBF
            case 0xE1...0xEC, 0xEE, 0xEF: length = 3
            case 0xED: length = 3; second = 0x80...0x9F
            case 0xF0: length = 4; second = 0x90...0xBF
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; second = 0x80...0x8F
            default: return nil
            }
            guard i + length <= bytes.count, second.contains(bytes[i + 1]) else { return nil }
            for k in 2..<max(length, 2) where !(0x80...0xBF).contains(bytes[i + k]) { return nil }
            decoded += bytes[i..<(i + length)]
            i += length
        }
    }
}
