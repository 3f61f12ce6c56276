/// The verified-token cache's hit path.
extension JWTVerifier {
    /// A cache hit, re-checked: the full token must match, the key must still be
    /// trusted and the time claims must still hold.
    func verifyCached<R>(_ token: UnsafeRawBufferPointer, hash: VerifiedTokenCache.Hash, cache: VerifiedTokenCache,
                                 _ body: (VerifiedToken) -> R) throws(JWTError) -> R? {
        guard let entry = cache.lookup(hash: hash, policy: policyFingerprint), entry.holds(token) else { return nil }
        let hit = entry.result
        guard keys.contains(hit.key) else {
            cache.remove(token, hash: hash)
            return nil
        }
        do throws(JWTError) {
            try compiled.checkTimes(hit.claims, now: clock.now())
        } catch {
            cache.remove(token, hash: hash)
            throw error
        }
        // `entry` holds the immutable bytes for the duration of `body`.
        return entry.bytes.withUnsafeBytes { stored in
            let header = UnsafeRawBufferPointer(rebasing: stored[token.count..<token.count + hit.headerCount])
            let claims = UnsafeRawBufferPointer(rebasing: stored[(token.count + hit.headerCount)..<stored.count])
            return body(VerifiedToken(algorithm: hit.algorithm, key: hit.key, header: header, claimsJSON: claims,
                                      claims: hit.claims, kidSpan: hit.kidSpan))
        }
    }
}
