@_spi(Internals) import JWTKernel

/// `kid` and `typ` of a protected header the core has already verified, found by a plain scan
/// of its top-level members (about a tenth of the cost of a second strict parse: the header was
/// validated moments ago, so only positions are needed). Every index is bounds-checked: on
/// anything unexpected the scan stops and reports what it found, it never traps.
/// (A core accessor for the spans the core's own header parse found would make this unnecessary.)
struct HeaderFields {
    var kid: JSONSpan?
    var typ: JSONSpan?

    init(_ header: UnsafeRawBufferPointer) {
        guard let base = header.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var scan = Scanner(bytes: base, count: header.count)
        scan.skipWhitespace()
        guard scan.take(UInt8(ascii: "{")) else { return }
        while true {
            scan.skipWhitespace()
            guard let name = scan.string() else { return }
            scan.skipWhitespace()
            guard scan.take(UInt8(ascii: ":")) else { return }
            scan.skipWhitespace()
            let valueStart = scan.pos
            if let value = scan.string() {
                if JSONString.equals(name, in: base, "kid") {
                    kid = value
                } else if JSONString.equals(name, in: base, "typ") {
                    typ = value
                }
            } else {
                scan.pos = valueStart
                guard scan.skipValue() else { return }
            }
            scan.skipWhitespace()
            guard scan.take(UInt8(ascii: ",")) else { return }
        }
    }

    private struct Scanner {
        let bytes: UnsafePointer<UInt8>
        let count: Int
        var pos = 0

        mutating func skipWhitespace() {
            while pos < count, bytes[pos] == 0x20 || bytes[pos] == 0x0A || bytes[pos] == 0x0D || bytes[pos] == 0x09 {
                pos += 1
            }
        }

        mutating func take(_ b: UInt8) -> Bool {
            guard pos < count, bytes[pos] == b else { return false }
            pos += 1
            return true
        }

        /// A string at `pos`: its content span (escaped if it holds a backslash); nil if none is here.
        mutating func string() -> JSONSpan? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = pos
            var escaped = false
            while pos < count {
                switch bytes[pos] {
                case UInt8(ascii: "\""):
                    pos += 1
                    return JSONSpan(start: start, end: pos - 1, kind: .string, escaped: escaped)
                case UInt8(ascii: "\\"):
                    escaped = true
                    pos += 2
                default:
                    pos += 1
                }
            }
            return nil
        }

        /// Skips a non-string value (number, literal, object or array, strings inside respected).
        mutating func skipValue() -> Bool {
            var depth = 0
            while pos < count {
                let b = bytes[pos]
                if b == UInt8(ascii: "\"") {
                    guard string() != nil else { return false }
                    if depth == 0 { return true }
                    continue
                }
                if b == UInt8(ascii: "{") || b == UInt8(ascii: "[") {
                    depth += 1
                } else if b == UInt8(ascii: "}") || b == UInt8(ascii: "]") {
                    if depth == 0 { return true }  // the end of the enclosing object: the value ended before it
                    depth -= 1
                    if depth == 0 { pos += 1; return true }
                } else if depth == 0, b == UInt8(ascii: ",") {
                    return true
                }
                pos += 1
            }
            return false
        }
    }
}
