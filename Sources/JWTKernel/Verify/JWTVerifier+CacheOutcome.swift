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
    /// library's jwtk_stats). Specialised in the caller, like `verify(_:_:)`; both run
    /// `verifyLending(_:cacheOutcome:_:)`, so the steps are the same by construction.
    @_spi(Internals)
    @inlinable
    public func verify<R>(
        _ token: UnsafeRawBufferPointer, cacheOutcome: inout CacheOutcome, _ body: (VerifiedToken) -> R
    ) throws(JWTError) -> R {
        var result: R? = nil
        try verifyLending(token, cacheOutcome: &cacheOutcome) { result = body($0) }
        // verifyLending calls its body exactly once whenever it returns without throwing.
        return result!
    }
}
