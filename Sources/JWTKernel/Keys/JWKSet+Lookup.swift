internal import CXXHash

#if canImport(Glibc)
import Glibc
#endif

/// Key selection for a token (the hot path).
extension JWKSet {
    /// Whether this exact key object is in the set (a cached verification's key still trusted).
    /// By identity: the caller passes no reference, so nothing is retained per cache hit.
    func contains(_ key: ObjectIdentifier) -> Bool {
        for i in keys.indices where ObjectIdentifier(keys[i]) == key { return true }
        return false
    }

    /// The key for a token, per RFC 8725 §3.1 and §3.10: by `kid` when there is
    /// one (and then that key only), otherwise the single key that fits `alg`.
    @_spi(Internals)
    public func select(kid: UnsafeRawBufferPointer?, alg: JWTAlgorithm) throws(JWTError) -> VerificationKey {
        guard let kid else {
            var found: VerificationKey?
            for key in keys where key.algorithms.contains(alg) {
                guard found == nil else { throw JWTError(.unknownKid, "token has no kid and several keys fit its alg") }
                found = key
            }
            guard let found else { throw JWTError(.unknownKid, "token has no kid and no key fits its alg") }
            return found
        }
        let hash = XXH3_64bits(kid.baseAddress, kid.count)
        var named = false
        for key in keys where key.kidHash == hash && key.kid != nil && Self.same(key.kidBytes, kid) {
            if key.algorithms.contains(alg) { return key }
            named = true
        }
        throw named
            ? JWTError(.keyAlgMismatch, "the key named by kid does not verify this alg")
            : JWTError(.unknownKid, "no key with this kid")
    }

    /// Byte equality with one `memcmp` (`elementsEqual` went through iterators, byte by byte).
    @inline(__always)
    private static func same(_ a: [UInt8], _ b: UnsafeRawBufferPointer) -> Bool {
        a.count == b.count && (b.isEmpty || a.withUnsafeBytes { memcmp($0.baseAddress!, b.baseAddress!, b.count) == 0 })
    }
}
