/// Where a verifier finds the key for a token: a fixed key set given at init,
/// or one issuer's keys in a `KeyStore`, read afresh for every token so a
/// refresh takes effect at once. The only point where `JWTVerifier` meets the store.
///
/// Optionals rather than a two-case enum with payloads: Swift hides
/// such an enum's case tag in spare pointer bits, where LeakSanitizer cannot
/// follow the reference, so a long-lived verifier was reported as leaking its
/// issuer's bytes (the same reason as `VerificationKey.Material`).
/// A final class rather than a struct: key selection reads it inside closures, and a struct of five references
/// was copied there (a retain and a release for each reference, per token).
final class KeyResolution: Sendable {
    /// The fixed key set; empty (and unused) when `store` is set.
    private let keys: JWKSet
    private let store: KeyStore?
    private let issuer: IssuerID?
    /// One published entry of a store, read without a store lookup (`pinned`).
    private let entry: IssuerKeys?

    private init(keys: JWKSet, store: KeyStore?, issuer: IssuerID?, entry: IssuerKeys?) {
        self.keys = keys
        self.store = store
        self.issuer = issuer
        self.entry = entry
    }

    static func fixed(_ keys: JWKSet) -> KeyResolution {
        KeyResolution(keys: keys, store: nil, issuer: nil, entry: nil)
    }

    static func store(_ store: KeyStore, _ issuer: IssuerID) -> KeyResolution {
        KeyResolution(keys: JWKSet(keys: []), store: store, issuer: issuer, entry: nil)
    }

    /// One publication of an issuer's entry, with the store's semantics (keys_unavailable without keys, stale
    /// and unknown-kid reports) but no lookup per token: for an owner that rebuilds its verifiers whenever the
    /// store's generation moves (the C library's routes), so a publication still takes effect on the next call.
    static func pinned(_ entry: IssuerKeys) -> KeyResolution {
        KeyResolution(keys: JWKSet(keys: []), store: nil, issuer: nil, entry: entry)
    }

    /// The key for a token whose signature `verifies` accepts (see `JWKSet.select`). From the store: the issuer's
    /// current keys, `keys_unavailable` if none were ever loaded (or they went
    /// past their maximum staleness), and an unknown kid is reported to the
    /// issuer's listener (a refresher) before the token fails.
    @inline(__always)
    func select(
        kid: UnsafeRawBufferPointer?, alg: JWTAlgorithm, verifies: (VerificationKey) -> Bool
    ) throws(JWTError) -> VerificationKey {
        if let entry { return try Self.select(in: entry, kid: kid, alg: alg, verifies: verifies) }
        guard let store, let issuer else { return try keys.select(kid: kid, alg: alg, verifies: verifies) }
        // The entry is borrowed from this thread's snapshot (no lock, no retain);
        // only the selected key is returned retained.
        return try store.withEntry(issuer) { (entry) throws(JWTError) -> VerificationKey in
            try Self.select(in: entry, kid: kid, alg: alg, verifies: verifies)
        }
    }

    /// A store entry's key, with its reports.
    @inline(__always)
    private static func select(
        in entry: IssuerKeys?, kid: UnsafeRawBufferPointer?, alg: JWTAlgorithm, verifies: (VerificationKey) -> Bool
    ) throws(JWTError) -> VerificationKey {
        guard let entry, entry.hasKeys else {
            throw JWTError(.keysUnavailable, "no keys could be loaded for this issuer")
        }
        if entry.isStale { entry.hooks.staleServed.increment() }
        do throws(JWTError) {
            return try entry.keySet.select(kid: kid, alg: alg, verifies: verifies)
        } catch {
            // A kid no key has is reported even when keys without kid were tried and failed: a kid-less key
            // (a PEM key next to a JWKS) must not hide a genuinely new kid from the refetch. One that verified
            // returned above, so a kid-less key that serves every token costs no refetch.
            if error.code == .unknownKid, kid != nil {
                entry.hooks.unknownKids.increment()
                entry.hooks.unknownKidListener?.unknownKid()
            }
            throw error
        }
    }

    /// Whether the key with this identity is still trusted (a cached verification's key).
    /// An identity rather than a reference: passing the entry's key retained and released it per hit.
    /// A hit answered under stale keys counts as `staleServed`, as a full verification does in `select`.
    func contains(_ key: ObjectIdentifier) -> Bool {
        if let entry { return Self.contains(key, in: entry) }
        guard let store, let issuer else { return keys.contains(key) }
        return store.withEntry(issuer) { entry in Self.contains(key, in: entry) }
    }

    @inline(__always)
    private static func contains(_ key: ObjectIdentifier, in entry: IssuerKeys?) -> Bool {
        guard let entry, entry.keySet.contains(key) else { return false }
        if entry.isStale { entry.hooks.staleServed.increment() }
        return true
    }
}
