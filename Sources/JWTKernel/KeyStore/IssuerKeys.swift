/// One issuer's keys as published in the store: immutable, so a lookup can use
/// it outside any lock while a refresh publishes its successor.
public final class IssuerKeys: Sendable {
    public let issuer: IssuerID
    /// nil until keys were loaded once, and again after they went past their
    /// maximum staleness: tokens of this issuer are then `keys_unavailable`.
    public var keys: JWKSet? { hasKeys ? keySet : nil }
    /// The keys, empty when `hasKeys` is false. Not optional so the hot path
    /// selects from the stored set in place (an optional would be copied out,
    /// retaining its arrays: a shared write per verification).
    let keySet: JWKSet
    let hasKeys: Bool
    /// Served although the source's freshness has run out (its refreshes fail).
    public let isStale: Bool
    /// State that outlives each publication (listener, counters).
    public let hooks: IssuerHooks

    init(issuer: IssuerID, keys: JWKSet?, isStale: Bool, hooks: IssuerHooks) {
        self.issuer = issuer
        self.keySet = keys ?? JWKSet(keys: [])
        self.hasKeys = keys != nil
        self.isStale = isStale
        self.hooks = hooks
    }
}

/// Per-issuer objects kept across publications: who hears about unknown kids,
/// and the counters the hot path bumps.
public final class IssuerHooks: Sendable {
    public let unknownKidListener: (any UnknownKidListener)?
    /// Tokens whose key was looked up while the keys were stale.
    public let staleServed = AtomicCounter()
    /// Tokens that named a kid the current keys lack.
    public let unknownKids = AtomicCounter()

    init(listener: (any UnknownKidListener)?) { self.unknownKidListener = listener }
}
