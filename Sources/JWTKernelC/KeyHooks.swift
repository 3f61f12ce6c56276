import JWTKernel

/// What the core's store-backed key lookup does on the side (KeyResolution.store), done by the C
/// library's routes, which verify with a cached snapshot of each issuer's keys: count keys served past
/// their freshness, and tell the issuer's refresher about an unknown kid (it only records the request,
/// at most one fetch per cooldown; the token fails at once).
///
/// `lookedUp` runs when a token is routed to its issuer, before the verified-token cache is asked, so
/// `stale_served` means "verifications decided while the keys were stale", whichever path answers
/// (a full verification, a cache hit, a rejection): what an operator needs to see how much traffic
/// rides on keys that cannot be refreshed (StaleServedTests).
enum KeyHooks {
    @inline(__always)
    static func lookedUp(_ keys: IssuerKeys) {
        if keys.isStale { keys.hooks.staleServed.increment() }
    }

    static func unknownKid(_ keys: IssuerKeys) {
        keys.hooks.unknownKids.increment()
        keys.hooks.unknownKidListener?.unknownKid()
    }
}
