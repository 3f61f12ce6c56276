internal import CXXHash

#if canImport(Glibc)
import Glibc
#endif

/// Key selection for a token (the hot path).
extension JWKSet {
    /// How many keys without a `kid` one token may be tried against (docs/ARCHITECTURE.md, the hot path, step 7).
    /// Each try is a signature check, so this bounds what a forged token costs: at most this many
    /// RSA/ECDSA/EdDSA verifications instead of one. Keys past the bound are never tried for such a token.
    public static let maxKidlessTries = 4

    /// Whether this exact key object is in the set (a cached verification's key still trusted).
    /// By identity: the caller passes no reference, so nothing is retained per cache hit.
    func contains(_ key: ObjectIdentifier) -> Bool {
        for i in keys.indices where ObjectIdentifier(keys[i]) == key { return true }
        return false
    }

    /// The key that verifies a token, per RFC 8725 §3.1 and §3.10, `verifies` checking the signature
    /// under one key:
    /// - with a `kid` some key has, that key only (`key_alg_mismatch` if it does not fit `alg`);
    /// - with no `kid`, the single key that fits `alg`, if exactly one does;
    /// - otherwise (a `kid` no key has, or no `kid` and several or no keys fitting), the keys without
    ///   a `kid` whose own type and `alg` fit the token's `alg`, in the set's order, at most
    ///   `maxKidlessTries` of them: a PEM key or a JWK without `kid` is a candidate for any token
    ///   of its algorithm, as in NGINX Plus and Envoy. The header never widens what a key verifies.
    ///
    /// A `kid` that no key has and no kid-less key verifies stays `unknown_kid` (so a key source
    /// still refetches for a genuinely new kid); a token without `kid` whose candidates all fail is
    /// `bad_signature`.
    @inline(__always)
    func select(
        kid: UnsafeRawBufferPointer?, alg: JWTAlgorithm, verifies: (VerificationKey) -> Bool
    ) throws(JWTError) -> VerificationKey {
        guard let kid else {
            var found: VerificationKey?
            var fitting = 0
            for key in keys where key.algorithms.contains(alg) {
                fitting += 1
                found = key
            }
            if fitting == 1, let found {
                guard verifies(found) else { throw JWTError(.badSignature, "signature does not verify") }
                return found
            }
            if let key = try kidless(alg: alg, tokenKid: false, verifies: verifies) { return key }
            throw fitting == 0
                ? JWTError(.unknownKid, "token has no kid and no key fits its alg")
                : JWTError(.unknownKid, "token has no kid and several keys fit its alg")
        }
        let hash = XXH3_64bits(kid.baseAddress, kid.count)
        var named = false
        for key in keys where key.kidHash == hash && key.kid != nil && Self.same(key.kidBytes, kid) {
            if key.algorithms.contains(alg) {
                guard verifies(key) else { throw JWTError(.badSignature, "signature does not verify") }
                return key
            }
            named = true
        }
        if named { throw JWTError(.keyAlgMismatch, "the key named by kid does not verify this alg") }
        guard let key = try kidless(alg: alg, tokenKid: true, verifies: verifies) else {
            throw JWTError(.unknownKid, "no key with this kid")
        }
        return key
    }

    /// The first kid-less key fitting `alg` that verifies, among at most `maxKidlessTries`; nil when
    /// no kid-less key fits. Tries stop at the first that verifies: the number of tries says which
    /// kid-less key signed, which a `kid` would have said anyway; each MAC compare is constant time.
    @inline(never)
    private func kidless(
        alg: JWTAlgorithm, tokenKid: Bool, verifies: (VerificationKey) -> Bool
    ) throws(JWTError) -> VerificationKey? {
        var tried = 0
        var more = false
        for key in keys where key.kid == nil && key.algorithms.contains(alg) {
            guard tried < Self.maxKidlessTries else {
                more = true
                break
            }
            tried += 1
            if verifies(key) { return key }
        }
        guard tried > 0 else { return nil }
        switch (tokenKid, more) {
        case (true, false): throw JWTError(.unknownKid, "no key with this kid, and no key without kid verifies")
        case (true, true):
            throw JWTError(.unknownKid, "no key with this kid, and none of the first 4 keys without kid verifies")
        case (false, false): throw JWTError(.badSignature, "signature does not verify under any key without kid")
        case (false, true):
            throw JWTError(.badSignature, "signature does not verify under the first 4 keys without kid")
        }
    }

    /// The key `select(kid:alg:verifies:)` would try first, signature not checked: for timing the
    /// lookup alone (`PipelineStages`, the micro benchmarks), never for verifying.
    @_spi(Internals)
    public func select(kid: UnsafeRawBufferPointer?, alg: JWTAlgorithm) throws(JWTError) -> VerificationKey {
        try select(kid: kid, alg: alg) { _ in true }
    }

    /// Byte equality with one `memcmp` (`elementsEqual` went through iterators, byte by byte).
    @inline(__always)
    private static func same(_ a: [UInt8], _ b: UnsafeRawBufferPointer) -> Bool {
        a.count == b.count && (b.isEmpty || a.withUnsafeBytes { memcmp($0.baseAddress!, b.baseAddress!, b.count) == 0 })
    }
}
