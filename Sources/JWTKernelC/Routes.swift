import JWTKernel

/// One core verifier per issuer entry of the keystore's `KeyStore`, all with the verifier's policy,
/// clock and cache: which one checks a token depends on its `iss` (see `IssuerRouting`). Immutable;
/// rebuilt when the store's generation moves, so the verify path reads the store through one atomic
/// load and takes none of its locks.
final class Routes: Sendable {
    /// One issuer's keys: the store entry (its stale flag and hooks) and a verifier of its key set
    /// (nil: registered for pull mode but no keys yet, or withdrawn: keys_unavailable).
    struct Entry: Sendable {
        let keys: IssuerKeys
        let verifier: JWTVerifier?
    }

    /// The jwtk_verifier these belong to (its serial, never reused) and the store generation.
    let owner: UInt64
    let generation: UInt64
    /// The any-issuer keys; nil when none are loaded.
    let anyIssuer: Entry?
    let byIssuer: [UInt64: [(name: IssuerName, entry: Entry)]]
    /// No keys at all: runs the core's checks in their usual order up to key selection, so a token
    /// that has no keys still gets the same earlier verdicts (malformed, alg_not_allowed, ...).
    let noKeys: JWTVerifier
    /// The policy's accepted issuers (empty: any), to tell keys_unavailable from unknown_issuer.
    let acceptedIssuers: [[UInt8]]

    init(owner: UInt64, store: KeyStore, settings: VerifierSettings, cache: VerifiedTokenCache?) {
        func make(_ keys: JWKSet) -> JWTVerifier {
            JWTVerifier(
                keys: keys, policy: settings.policy, clock: CallClock(), maxTokenSize: settings.maxTokenSize,
                cache: cache)
        }
        self.owner = owner
        // Read before the entries: a publication in between makes the next call rebuild again.
        self.generation = store.generation
        var any: Entry?
        var map: [UInt64: [(name: IssuerName, entry: Entry)]] = [:]
        var entries: [String: Entry] = [:]
        for issuer in store.issuers {
            guard let keys = store.entry(forIssuer: issuer) else { continue }
            let entry = Entry(keys: keys, verifier: keys.keys.map(make))
            if issuer == Keystore.anyIssuer {
                any = entry
            } else {
                entries[issuer] = entry
            }
        }
        // Pull mode: every issuer spelling of the verifier's source uses the keys published under the first.
        if let remote = settings.remote, let shared = entries[remote.keyIssuer] {
            for alias in remote.issuers where entries[alias] == nil { entries[alias] = shared }
        }
        for (issuer, entry) in entries {
            let name = IssuerName(issuer)
            map[name.hash, default: []].append((name, entry))
        }
        self.anyIssuer = any?.verifier == nil ? nil : any
        self.byIssuer = map
        self.noKeys = make(JWKSet(keys: []))
        self.acceptedIssuers = settings.policy.issuers.map { Array($0.utf8) }
    }

    /// Only any-issuer keys (or none): every token goes to one verifier without reading its claims first.
    var needsRouting: Bool { !byIssuer.isEmpty }

    @inline(__always)
    func entry(forIssuer bytes: UnsafeRawBufferPointer) -> Entry? {
        guard let bucket = byIssuer[IssuerName.hash(bytes)] else { return nil }
        for item in bucket where item.name.equals(bytes) { return item.entry }
        return nil
    }

    func accepts(issuer bytes: UnsafeRawBufferPointer) -> Bool {
        acceptedIssuers.isEmpty || acceptedIssuers.contains { $0.withUnsafeBytes { $0.elementsEqual(bytes) } }
    }
}
