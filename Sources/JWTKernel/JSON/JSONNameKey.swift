/// A 64-bit key for a JSON string's decoded value, computed without copying:
/// the way the hot path matches member names and finds duplicates.
///
/// Strings of up to 7 decoded bytes map to their bytes packed little-endian
/// with the length in the top byte, so their keys are exact: equal keys mean
/// equal strings, and `JSONNameKey("exp")` can be compared with one integer
/// compare. Longer strings get a hash with the top bit set, so they can never
/// take a short string's key; equal keys among them only say "compare in full".
/// Escaped and unescaped spellings of one string get the same key.
@_spi(Internals)
public struct JSONNameKey: Hashable, Sendable {
    public let value: UInt64

    /// True when equal keys prove equal strings (both at most 7 decoded bytes).
    public var isExact: Bool { value >> 63 == 0 }

    /// The key of a literal name (at most 7 bytes: every registered claim and header name).
    init(_ name: StaticString) {
        precondition(name.utf8CodeUnitCount <= 7, "exact keys hold at most 7 bytes")
        var packed: UInt64 = 0
        for i in 0..<name.utf8CodeUnitCount { packed |= UInt64(name.utf8Start[i]) << (8 * UInt64(i)) }
        value = packed | UInt64(name.utf8CodeUnitCount) << 56
    }

    /// The key of arbitrary bytes (configuration values, e.g. required claim names).
    init(bytes: [UInt8]) {
        var builder = Builder()
        for b in bytes { builder.append(b) }
        value = builder.key
    }

    /// The key of a string span `JSONParser` validated in `bytes`.
    @inline(__always)
    public init(_ span: JSONSpan, in bytes: UnsafePointer<UInt8>) {
        if span.escaped {
            var builder = Builder()
            var it = JSONStringDecoder(span, in: bytes)
            while let b = it.next() { builder.append(b) }
            value = builder.key
            return
        }
        let p = bytes + span.start, n = span.count
        if n <= 7 {
            var packed: UInt64 = 0
            for i in 0..<n { packed |= UInt64(p[i]) << (8 * UInt64(i)) }
            value = packed | UInt64(n) << 56
        } else {
            // Safety: n >= 8, so both 8-byte loads lie inside the span.
            let first = UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)
            let last = UnsafeRawPointer(p + n - 8).loadUnaligned(as: UInt64.self)
            value = Self.long(first: first, last: last, count: n)
        }
    }

    /// The same key, for the parser: `readable` bytes from `bytes` may be
    /// read, so a short unescaped name whose 8-byte window fits is packed with
    /// one load and a mask instead of a loop, and a long one is two loads (the
    /// result is identical). Escaped names take the out-of-line decoder.
    @inline(__always)
    init(_ span: JSONSpan, in bytes: UnsafePointer<UInt8>, readable: Int) {
        let n = span.count
        if !span.escaped {
            if n <= 7, span.start + 8 <= readable {
                // Safety: start + 8 <= readable, so the load lies inside the parser's buffer; the
                // bytes past the name are masked off.
                let window = UnsafeRawPointer(bytes + span.start).loadUnaligned(as: UInt64.self)
                let mask: UInt64 = (1 << (8 * UInt64(n))) &- 1
                self.init(value: UInt64(littleEndian: window) & mask | UInt64(n) << 56)
                return
            }
            if n >= 8 {
                // Safety: n >= 8, so both 8-byte loads lie inside the span.
                let p = UnsafeRawPointer(bytes + span.start)
                let first = p.loadUnaligned(as: UInt64.self)
                let last = p.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
                self.init(value: Self.long(first: first, last: last, count: n))
                return
            }
        }
        self.init(outOfLine: span, in: bytes)
    }

    /// The rare cases of the parser's key (escaped names, a short name at the buffer's end).
    @inline(never)
    private init(outOfLine span: JSONSpan, in bytes: UnsafePointer<UInt8>) {
        self.init(span, in: bytes)
    }

    @inline(__always)
    private init(value: UInt64) { self.value = value }

    @inline(__always)
    private static func long(first: UInt64, last: UInt64, count: Int) -> UInt64 {
        var h = (first &* 0x9E37_79B9_7F4A_7C15) ^ (last &* 0xC2B2_AE3D_27D4_EB4F) ^ UInt64(truncatingIfNeeded: count)
        h ^= h >> 29
        return h | 1 << 63
    }

    /// Builds the same key one decoded byte at a time (escaped strings, configuration).
    private struct Builder {
        var first: UInt64 = 0, last: UInt64 = 0, count = 0

        mutating func append(_ b: UInt8) {
            if count < 8 { first |= UInt64(b) << (8 * UInt64(count)) }
            last = last >> 8 | UInt64(b) << 56
            count += 1
        }

        var key: UInt64 {
            if count <= 7 { return first | UInt64(count) << 56 }
            return JSONNameKey.long(first: first, last: last, count: count)
        }
    }
}
