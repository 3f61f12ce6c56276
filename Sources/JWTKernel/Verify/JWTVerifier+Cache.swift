/// The verified-token cache's hit path.
extension JWTVerifier {
    /// A cache hit, re-checked: the full token must match, the key must still be
    /// trusted and the time claims must still hold. False: not a hit (`body` not called).
    func lendCached(
        _ token: UnsafeRawBufferPointer, hash: UInt64, cache: VerifiedTokenCache, at now: Int64?,
        holding hold: CacheHold?, _ body: (VerifiedToken) -> Void
    ) throws(JWTError) -> Bool {
        guard let entry = cache.lookup(hash: hash, policy: policyFingerprint), entry.holds(token) else { return false }
        return try lend(consume entry, token, hash: hash, cache: cache, at: now, holding: hold, body)
    }

    /// The rest of `lendCached` for an entry already known to hold exactly `token` under this verifier's policy
    /// (found by `lendCached`, or by the probe before routing, `CacheProbe.swift`): key, times, then `body`.
    /// `entry` is consumed: the lookup's reference goes to `hold` when there is one, so holding adds no atomic.
    @inline(__always)
    func lend(
        _ entry: consuming CacheEntry, _ token: UnsafeRawBufferPointer, hash: UInt64, cache: VerifiedTokenCache,
        at now: Int64?, holding hold: CacheHold?, _ body: (VerifiedToken) -> Void
    ) throws(JWTError) -> Bool {
        // By identity: `entry` holds its key, so no other object can have that identity meanwhile.
        guard resolution.contains(ObjectIdentifier(entry.key)) else {
            cache.remove(token, hash: hash)
            return false
        }
        do throws(JWTError) {
            try compiled.checkTimes(entry.claims, now: now ?? clock.now())
        } catch {
            cache.remove(token, hash: hash)
            throw error
        }
        // `entry` holds the immutable bytes for the duration of `body`.
        let stored = entry.bytes
        let headerStart = stored.baseAddress! + entry.tokenCount
        let header = UnsafeRawBufferPointer(start: headerStart, count: entry.headerCount)
        let claims = UnsafeRawBufferPointer(
            start: headerStart + entry.headerCount, count: stored.count - entry.tokenCount - entry.headerCount)
        let verified = VerifiedToken(
            algorithm: entry.algorithm, key: entry.key, header: header, claimsJSON: claims,
            claims: entry.claims, kidSpan: entry.kidSpan, typSpan: entry.typSpan)
        guard let hold else {
            withExtendedLifetime(entry) { body(verified) }
            return true
        }
        // The holder keeps the entry, and so its bytes and key, past this call.
        hold.pointee.attachment = entry.attachment.load(ordering: .acquiring)
        hold.pointee.entry = consume entry
        hold.pointee.fresh = true
        body(verified)
        return true
    }
}
