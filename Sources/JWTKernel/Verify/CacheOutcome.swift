/// Whether the verified-token cache answered a verification.
public enum CacheOutcome: Sendable {
    /// No cache, or the token is too large for it.
    case notUsed
    /// Answered from the cache (the verdict may still be a failure: expired since it was stored).
    case hit
    /// Looked up, not found: verified in full (and stored on success).
    case miss
}
