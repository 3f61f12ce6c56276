/// The verified-token cache consulted before the caller has chosen a verifier.
///
/// For a caller that routes each token between verifiers sharing one cache and one policy (the C
/// library's issuer routing): it reads the token's `iss` from a cached verification of exactly this
/// token instead of decoding and parsing the payload, picks the verifier `iss` names, and lets that
/// verifier decide the hit with its usual checks (`lendCached`). The `iss` of a cached entry is the
/// token's own (the full token matched), so the route is the one a parse would have chosen.
@_spi(Internals)
public struct CacheProbe {
    /// The token's slot hash, reused by the hit.
    let hash: UInt64
    /// A cached verification of exactly this token under the probing verifier's policy.
    let entry: CacheEntry

    /// The cached claims' `iss`.
    public enum Issuer {
        /// No `iss` claim.
        case absent
        /// The `iss` string's bytes (no escapes to resolve).
        case found(UnsafeRawBufferPointer)
        /// A string with JSON escapes: the caller decodes the token itself.
        case escaped
    }

    /// Calls `body` with the cached `iss`; the bytes are valid only inside `body` (the entry holds them).
    @inline(__always)
    public func withIssuer<R>(_ body: (Issuer) -> R) -> R {
        guard let iss = entry.claims.iss else { return body(.absent) }
        guard !iss.escaped else { return body(.escaped) }
        // Safety: the entry's immutable bytes are token ++ header ++ claims, the span indexes the claims
        // (as read when it was verified), and the entry is kept alive for the duration of `body`.
        let claims = entry.bytes.baseAddress! + entry.tokenCount + entry.headerCount
        return withExtendedLifetime(entry) {
            body(.found(UnsafeRawBufferPointer(start: claims + iss.start, count: iss.count)))
        }
    }
}

extension JWTVerifier {
    /// A cached verification of exactly `token` under this verifier's cache and policy, or nil (no cache,
    /// a token too large for it, or not cached). Nothing about the key or the times is checked here.
    @_spi(Internals)
    @inline(__always)
    public func probeCache(_ token: UnsafeRawBufferPointer) -> CacheProbe? {
        guard let cache, token.count <= cache.configuration.maxTokenSize, token.count <= maxTokenSize else {
            return nil
        }
        let hash = cache.hash(token)
        guard let entry = cache.lookup(hash: hash, policy: policyFingerprint), entry.holds(token) else { return nil }
        return CacheProbe(hash: hash, entry: entry)
    }

    /// The cache hit of `verifyLending` for a probe made by a verifier with the same cache and policy:
    /// the probe's entry (already matched to the whole token, so neither looked up nor compared again)
    /// with `lendCached`'s checks: this verifier's keys must still hold the entry's key and the times are
    /// re-checked. True: answered (`body` called once); false: not a hit (the key left this route's set),
    /// verify in full. `cacheOutcome` is `.hit` when this answered or threw, as in `verifyLending`.
    @_spi(Internals)
    @inline(__always)
    public func lendCached(
        _ token: UnsafeRawBufferPointer, _ probe: CacheProbe, cacheOutcome: inout CacheOutcome,
        _ body: (VerifiedToken) -> Void
    ) throws(JWTError) -> Bool {
        guard let cache, probe.entry.policy == policyFingerprint else { return false }
        cacheOutcome = .hit
        return try lend(probe.entry, token, hash: probe.hash, cache: cache, body)
    }
}
