#if canImport(Glibc)
import Glibc
#endif

/// Operations on validated JSON strings that never materialise the decoded value.
@_spi(Internals)
public enum JSONString {
    /// True when the decoded string equals `expected` byte for byte.
    @inlinable
    public static func equals(
        _ span: JSONSpan, in bytes: UnsafePointer<UInt8>, _ expected: UnsafeRawBufferPointer
    ) -> Bool {
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

    /// Copies the decoded value into `dst` (capacity `capacity`); nil if it does not fit.
    public static func decode(
        _ span: JSONSpan, in bytes: UnsafePointer<UInt8>, into dst: UnsafeMutablePointer<UInt8>, capacity: Int
    ) -> Int? {
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
