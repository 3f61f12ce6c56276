/// The verified-token cache consulted before the caller has chosen a verifier.
///
/// `MultiIssuerVerifier` looks a token up by hash (any policy), reads its `iss` from a cached
/// verification of exactly this token instead of decoding and parsing the payload, picks the route
/// `iss` names, and lets that route's verifier decide the hit with its usual checks (`lendCached`). The
/// `iss` of a cached entry is the token's own (the full token matched), so the route is the one a parse
/// would have chosen.
extension JWTVerifier {
    /// The cache hit of `verifyLending` for a probe of this verifier's cache, if the entry is under its policy:
    /// `entry`, a cached verification of exactly this token found under `hash` (under some policy: checked
    /// here), so neither looked up nor compared again, with `lendCached`'s checks: this verifier's keys must
    /// still hold the entry's key and the times are re-checked. True: answered (`body` called once); false:
    /// not a hit (the key left this route's set), verify in full. `cacheOutcome` is `.hit` when this answered
    /// or threw, as in `verifyLending`. `entry` is consumed, as `lend` consumes it.
    @inline(__always)
    func lendCached(
        _ token: UnsafeRawBufferPointer, probed entry: consuming CacheEntry, hash: UInt64, at now: Int64?,
        cacheOutcome: inout CacheOutcome, holding hold: CacheHold?, _ body: (VerifiedToken) -> Void
    ) throws(JWTError) -> Bool {
        guard let cache, entry.policy == policyFingerprint else { return false }
        cacheOutcome = .hit
        return try lend(consume entry, token, hash: hash, cache: cache, at: now, holding: hold, body)
    }
}
