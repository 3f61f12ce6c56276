@_spi(Internals) import JWTKernel

/// The jwtk_verifier's routing for one generation of its keystore: a `MultiIssuerVerifier` over the
/// keystore's `KeyStore`, with the verifier's policy, clock and cache on every route. The routing rules
/// are the core's (docs/ARCHITECTURE.md, "The C library's keystore"); this type only says which issuers
/// the keystore's entries make:
///
/// - every issuer entry of the store is a route (its own keys, never the any-issuer keys in their place:
///   an entry without keys, in pull mode before the first fetch or withdrawn, is keys_unavailable);
/// - every spelling of a remote source's issuer is a route to the keys published under its first;
/// - the any-issuer keys are the fallback (a token whose `iss` has no route, or that has no `iss`), and so
///   is the any-issuer entry without keys when the policy accepts any issuer or there is no issuer entry
///   at all (keys_unavailable once the core's checks before key selection pass);
/// - without a fallback, an issuer the policy accepts but that has no entry routes to the (empty)
///   any-issuer entry (keys_unavailable); any other `iss` is unknown_issuer.
///
/// Each route reads the entry published when this was built (`pinned`, no store lookup per token), and the
/// set of issuers is fixed here too, so this is rebuilt when the store's generation moves
/// (`VerifierState.routes(reusing:)`): the verify path reads the generation through one atomic load and
/// takes none of the store's locks.
final class Routes: Sendable {
    /// The jwtk_verifier these belong to (its serial, never reused) and the store generation.
    let owner: UInt64
    let generation: UInt64
    let verifier: MultiIssuerVerifier

    init(owner: UInt64, store: KeyStore, settings: VerifierSettings, cache: VerifiedTokenCache?) {
        self.owner = owner
        // Read before the entries: a publication in between makes the next call rebuild again.
        self.generation = store.generation
        let policy = settings.policy
        var issuers: [IssuerConfiguration] = []
        var routed = Set<String>()
        for issuer in store.issuers where issuer != KeystoreState.anyIssuer && routed.insert(issuer).inserted {
            issuers.append(IssuerConfiguration(issuer: issuer, policy: policy))
        }
        // Pull mode: every issuer spelling of the verifier's source uses the keys published under the first.
        if let remote = settings.remote {
            for alias in remote.issuers where routed.insert(alias).inserted {
                issuers.append(IssuerConfiguration(issuer: alias, policy: policy, keyIssuer: remote.keyIssuer))
            }
        }
        let anyKeys = store.entry(forIssuer: KeystoreState.anyIssuer)?.keys != nil
        let fallback =
            anyKeys || policy.issuers.isEmpty || issuers.isEmpty
            ? IssuerConfiguration(issuer: KeystoreState.anyIssuer, policy: policy) : nil
        if fallback == nil {
            for accepted in policy.issuers where routed.insert(accepted).inserted {
                issuers.append(IssuerConfiguration(issuer: accepted, policy: policy, keyIssuer: KeystoreState.anyIssuer))
            }
        }
        self.verifier = MultiIssuerVerifier(
            store: store, issuers: issuers, fallback: fallback, pinned: true, clock: SystemClock(),
            maxTokenSize: settings.maxTokenSize, cache: cache)
    }
}
