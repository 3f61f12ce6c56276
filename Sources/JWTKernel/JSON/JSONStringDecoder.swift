#if canImport(Glibc)
import Glibc
#endif

/// Yields the UTF-8 bytes a validated JSON string stands for, resolving
/// escapes on the fly so that comparisons (`"https:\/\/x"` == `https://x`)
/// and hashing need no decoded copy.
@_spi(Internals)
public struct JSONStringDecoder: IteratorProtocol {
    @usableFromInline let bytes: UnsafePointer<UInt8>
    @usableFromInline var pos: Int
    @usableFromInline let end: Int
    @usableFromInline var pending: UInt32 = 0  // queued bytes of a multi-byte escape, low byte first
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
        default: return e  // \" \\ \/
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
