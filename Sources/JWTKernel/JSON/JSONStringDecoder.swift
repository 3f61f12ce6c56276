#if canImport(Glibc)
import Glibc
#endif

/// Yields the UTF-8 bytes a validated JSON string stands for, resolving
/// escapes on the fly so that comparisons (`"https:\/\/x"` == `https://x`)
/// and hashing need no decoded copy.
public struct JSONStringDecoder: IteratorProtocol {
    @usableFromInline let bytes: UnsafePointer<UInt8>
    @usableFromInline var pos: Int
    @usableFromInline let end: Int
    @usableFromInline var pending: UInt32 = 0   // queued bytes of a multi-byte escape, low byte first
    @usableFromInline var pendingCount = 0

    /// `span` must come from `JSONParser` over the same `bytes` (so it is valid).
    @inlinable
    public init(_ span: JSONSpan, in bytes: UnsafePointer<UInt8>) {
        self.bytes = bytes
        self.pos = span.start
        self.end = span.end
    }

    @inlinable
    public mutating func next() -> UInt8? {
        if pendingCount > 0 {
            let b = UInt8(truncatingIfNeeded: pending)
            pending >>= 8
            pendingCount -= 1
            return b
        }
        guard pos < end else { return nil }
        let b = bytes[pos]
        guard b == UInt8(ascii: "\\") else {
            pos += 1
            return b
        }
        let e = bytes[pos + 1]
        pos += 2
        switch e {
        case UInt8(ascii: "b"): return 0x08
        case UInt8(ascii: "f"): return 0x0C
        case UInt8(ascii: "n"): return 0x0A
        case UInt8(ascii: "r"): return 0x0D
        case UInt8(ascii: "t"): return 0x09
        case UInt8(ascii: "u"): return decodeUnicodeEscape()
        default: return e   // \" \\ \/
        }
    }

    @usableFromInline
    mutating func decodeUnicodeEscape() -> UInt8 {
        var scalar = hex4(pos)
        pos += 4
        if scalar >= 0xD800 && scalar <= 0xDBFF {
            // The parser guarantees a low surrogate escape follows.
            let low = hex4(pos + 2)
            pos += 6
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        switch scalar {
        case 0..<0x80:
            return UInt8(scalar)
        case 0x80..<0x800:
            queue(0x80 | UInt8(scalar & 0x3F))
            return 0xC0 | UInt8(scalar >> 6)
        case 0x800..<0x10000:
            queue(0x80 | UInt8(scalar >> 6 & 0x3F), 0x80 | UInt8(scalar & 0x3F))
            return 0xE0 | UInt8(scalar >> 12)
        default:
            queue(0x80 | UInt8(scalar >> 12 & 0x3F), 0x80 | UInt8(scalar >> 6 & 0x3F), 0x80 | UInt8(scalar & 0x3F))
            return 0xF0 | UInt8(scalar >> 18)
        }
    }

    /// Queues up to three continuation bytes, emitted in argument order.
    @inline(__always) @usableFromInline
    mutating func queue(_ b1: UInt8, _ b2: UInt8? = nil, _ b3: UInt8? = nil) {
        pending = UInt32(b1)
        pendingCount = 1
        if let b2 { pending |= UInt32(b2) << 8; pendingCount = 2 }
        if let b3 { pending |= UInt32(b3) << 16; pendingCount = 3 }
    }

    @usableFromInline
    func hex4(_ i: Int) -> UInt32 {
        var v: UInt32 = 0
        for k in 0..<4 { v = v << 4 | UInt32(hexValue(bytes[i + k]) ?? 0) }
        return v
    }
}

/// Operations on validated JSON strings that never materialise the decoded value.
public enum JSONString {
    /// True when the decoded string equals `expected` byte for byte.
    @inlinable
    public static func equals(_ span: JSONSpan, in bytes: UnsafePointer<UInt8>, _ expected: UnsafeRawBufferPointer) -> Bool {
        if !span.escaped {
            guard span.count == expected.count else { return false }
            return span.count == 0 || memcmp(bytes + span.start, expected.baseAddress!, span.count) == 0
        }
        var it = JSONStringDecoder(span, in: bytes)
        var i = 0
        while let b = it.next() {
            guard i < expected.count, expected[i] == b else { return false }
            i += 1
        }
        return i == expected.count
    }

    @inlinable
    public static func equals(_ span: JSONSpan, in bytes: UnsafePointer<UInt8>, _ expected: StaticString) -> Bool {
        equals(span, in: bytes, UnsafeRawBufferPointer(start: expected.utf8Start, count: expected.utf8CodeUnitCount))
    }

    /// True when two validated strings decode to the same bytes.
    public static func equals(_ a: JSONSpan, _ b: JSONSpan, in bytes: UnsafePointer<UInt8>) -> Bool {
        if !a.escaped && !b.escaped {
            return a.count == b.count && (a.count == 0 || memcmp(bytes + a.start, bytes + b.start, a.count) == 0)
        }
        var x = JSONStringDecoder(a, in: bytes), y = JSONStringDecoder(b, in: bytes)
        while true {
            let p = x.next(), q = y.next()
            if p != q { return false }
            if p == nil { return true }
        }
    }

    /// FNV-1a over the decoded bytes: cheap for the short member names it is used on.
    public static func hash(_ span: JSONSpan, in bytes: UnsafePointer<UInt8>) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        if !span.escaped {
            for i in span.start..<span.end { h = (h ^ UInt64(bytes[i])) &* 0x100_0000_01b3 }
            return h
        }
        var it = JSONStringDecoder(span, in: bytes)
        while let b = it.next() { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return h
    }

    /// Copies the decoded value into `dst` (capacity `capacity`); nil if it does not fit.
    public static func decode(_ span: JSONSpan, in bytes: UnsafePointer<UInt8>, into dst: UnsafeMutablePointer<UInt8>, capacity: Int) -> Int? {
        var it = JSONStringDecoder(span, in: bytes)
        var n = 0
        while let b = it.next() {
            guard n < capacity else { return nil }
            dst[n] = b
            n += 1
        }
        return n
    }

    /// The decoded value as a Swift `String` (allocates; for accessors, not the hot path).
    public static func string(_ span: JSONSpan, in bytes: UnsafePointer<UInt8>) -> String {
        var out = [UInt8]()
        out.reserveCapacity(span.count)
        var it = JSONStringDecoder(span, in: bytes)
        while let b = it.next() { out.append(b) }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Member names seen so far in one object, for duplicate detection without
/// allocating for ordinary objects (the first 64 names live on the stack).
struct MemberNameSet {
    private var inline = InlineArray<64, (hash: UInt64, span: JSONSpan)>(repeating: (0, JSONSpan(start: 0, end: 0, kind: .string)))
    private var overflow: [(hash: UInt64, span: JSONSpan)] = []
    private var count = 0

    /// Adds `name`; false if an equal name (after unescaping) was already there.
    mutating func insert(_ name: JSONSpan, in bytes: UnsafePointer<UInt8>) -> Bool {
        let h = JSONString.hash(name, in: bytes)
        for k in 0..<min(count, 64) where inline[k].hash == h && JSONString.equals(inline[k].span, name, in: bytes) {
            return false
        }
        for entry in overflow where entry.hash == h && JSONString.equals(entry.span, name, in: bytes) {
            return false
        }
        if count < 64 { inline[count] = (h, name) } else { overflow.append((h, name)) }
        count += 1
        return true
    }
}
