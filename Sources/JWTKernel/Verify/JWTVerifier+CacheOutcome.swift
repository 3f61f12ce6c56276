/// Whether the verified-token cache answered a verification.
@_spi(Internals)
public enum CacheOutcome: Sendable {
    /// No cache, or the token is too large for it.
    case notUsed
    /// Answered from the cache (the verdict may still be a failure: expired since it was stored).
    case hit
    /// Looked up, not found: verified in full (and stored on success).
    case miss
}

extension JWTVerifier {
    /// `verify(_:_:)` that also reports what the cache did, for a caller that counts it (the C
    /// library's jwtk_stats). The same steps in the same order as `verify(_:_:)`.
    @_spi(Internals)
    @inline(__always)
    public func verify<R>(
        _ token: UnsafeRawBufferPointer, cacheOutcome: inout CacheOutcome, _ body: (VerifiedToken) -> R
    ) throws(JWTError) -> R {
        guard let cache, token.count <= cache.configuration.maxTokenSize, token.count <= maxTokenSize else {
            cacheOutcome = .notUsed
            return try verifyInFull(token, body)
        }
        let hash = cache.hash(token)
        cacheOutcome = .hit
        if let hit = try verifyCached(token, hash: hash, cache: cache, body) { return hit }
        cacheOutcome = .miss
        return try verifyInFull(token) { verified in
            cache.insert(token, hash: hash, policy: policyFingerprint, verified: verified)
            return body(verified)
        }
    }
}
