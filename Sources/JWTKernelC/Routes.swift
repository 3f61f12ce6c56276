import JWTKernel

/// One core verifier per key set of a keystore snapshot, all with the verifier's policy, clock and
/// cache: which one checks a token depends on its `iss` (see `IssuerRouting`). Immutable; rebuilt
/// when the keystore publishes a new generation.
final class Routes: Sendable {
    /// The jwtk_verifier these belong to (its serial, never reused) and the keystore generation.
    let owner: UInt64
    let generation: UInt64
    /// Verifies with the any-issuer keys; nil when none are loaded.
    let anyIssuer: JWTVerifier?
    let byIssuer: [UInt64: [(name: IssuerName, verifier: JWTVerifier)]]
    /// No keys at all: runs the core's checks in their usual order up to key selection, so a token
    /// that has no keys still gets the same earlier verdicts (malformed, alg_not_allowed, ...).
    let noKeys: JWTVerifier
    /// The store held no key for any issuer.
    let storeIsEmpty: Bool
    /// The policy's accepted issuers (empty: any), to tell keys_unavailable from unknown_issuer.
    let acceptedIssuers: [[UInt8]]

    init(owner: UInt64, snapshot: KeySnapshot, settings: VerifierSettings, cache: VerifiedTokenCache?) {
        func make(_ keys: JWKSet) -> JWTVerifier {
            JWTVerifier(
                keys: keys, policy: settings.policy, clock: CallClock(), maxTokenSize: settings.maxTokenSize,
                cache: cache)
        }
        self.owner = owner
        self.generation = snapshot.generation
        self.anyIssuer = snapshot.anyIssuer.map(make)
        var map: [UInt64: [(name: IssuerName, verifier: JWTVerifier)]] = [:]
        for (name, keys) in snapshot.byIssuer { map[name.hash, default: []].append((name, make(keys))) }
        self.byIssuer = map
        self.noKeys = make(JWKSet(keys: []))
        self.storeIsEmpty = snapshot.anyIssuer == nil && snapshot.byIssuer.isEmpty
        self.acceptedIssuers = settings.policy.issuers.map { Array($0.utf8) }
    }

    /// Only any-issuer keys (or none): every token goes to one verifier without reading its claims first.
    var needsRouting: Bool { !byIssuer.isEmpty }

    @inline(__always)
    func verifier(forIssuer bytes: UnsafeRawBufferPointer) -> JWTVerifier? {
        guard let bucket = byIssuer[IssuerName.hash(bytes)] else { return nil }
        for entry in bucket where entry.name.equals(bytes) { return entry.verifier }
        return nil
    }

    func accepts(issuer bytes: UnsafeRawBufferPointer) -> Bool {
        acceptedIssuers.isEmpty || acceptedIssuers.contains { $0.withUnsafeBytes { $0.elementsEqual(bytes) } }
    }
}
