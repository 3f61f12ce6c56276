@_spi(Internals) import JWTKernel

/// `IssuerRouting` for a token the verified-token cache holds: the route comes from the `iss` stored
/// with the cached verification (`CacheProbe`), so a repeated token is neither decoded nor parsed
/// before the hit. Every route of a jwtk_verifier shares one cache and one policy, and the cached
/// `iss` is the token's own, so this picks the entry `IssuerRouting.route` would pick; the chosen
/// verifier then checks the hit as the core always does (the key must be in that route's current
/// keys, the times must still hold). Whatever `IssuerRouting` would answer without a verifier
/// (keys_unavailable, unknown_issuer, missing_claim) and an escaped `iss` go the slow way.
enum CachedRouting {
    /// The entry to verify `probe`'s token with, or nil: route it with `IssuerRouting`.
    @inline(__always)
    static func route(_ probe: CacheProbe, _ routes: Routes) -> Routes.Entry? {
        probe.withIssuer { issuer -> Routes.Entry? in
            switch issuer {
            case .found(let iss):
                // The same order as IssuerRouting: the issuer's own entry first, never the any-issuer keys
                // in its place.
                if let entry = routes.entry(forIssuer: iss) { return entry.verifier == nil ? nil : entry }
                return routes.anyIssuer
            case .absent:
                return routes.anyIssuer
            case .escaped:
                return nil
            }
        }
    }
}
