/// Reading a header `alg` straight from its JSON span.
extension JWTAlgorithm {
    /// Parses a header `alg` value without allocating. Case-sensitive, as RFC 7515 requires.
    static func parse(_ span: JSONSpan, in bytes: UnsafePointer<UInt8>) -> JWTAlgorithm? {
        guard let packed = packName(span, in: bytes) else { return nil }
        for (code, alg) in packedNames where code == packed { return alg }
        return nil
    }

    /// True for any spelling of `none`, so the error can say so plainly.
    static func isNone(_ span: JSONSpan, in bytes: UnsafePointer<UInt8>) -> Bool {
        guard let packed = packName(span, in: bytes) else { return false }
        return packed | 0x2020_2020 == 0x0400_0000_656e_6f6e  // "none" little-endian, case-folded, length 4
    }

    /// Up to 7 decoded bytes packed little-endian with the length in the top
    /// byte (so "HS256\u0000" is not "HS256"); nil for longer names (no algorithm is).
    private static func packName(_ span: JSONSpan, in bytes: UnsafePointer<UInt8>) -> UInt64? {
        var it = JSONStringDecoder(span, in: bytes)
        var packed: UInt64 = 0
        var n: UInt64 = 0
        while let b = it.next() {
            guard n < 7 else { return nil }
            packed |= UInt64(b) << (8 * n)
            n += 1
        }
        return packed | n << 56
    }

    private static let packedNames: [(UInt64, JWTAlgorithm)] = allCases.map { alg in
        var packed: UInt64 = 0
        for (i, b) in alg.rawValue.utf8.enumerated() { packed |= UInt64(b) << (8 * UInt64(i)) }
        return (packed | UInt64(alg.rawValue.utf8.count) << 56, alg)
    }
}
