import JWTKernel
import JWTKernelRemote

/// A verifier's pull-mode configuration once resolved: where its issuer's keys come from and on what
/// schedule. Registered in the keystore by jwtk_verifier_new (no thread, no I/O there).
struct RemoteKeys {
    /// The JWKS (or {kid: PEM} map) URL: "jwks_url", or the provider preset's key URL; with
    /// `discovery`, the issuer whose OpenID Connect discovery document names the key URL.
    var url: String
    /// "discovery": true: `url` is the issuer, its keys are found through its discovery document.
    var discovery = false
    /// The store entry the fetched keys are published under (the first issuer).
    var keyIssuer: String
    /// Every issuer spelling whose tokens use those keys (keyIssuer first).
    var issuers: [String]
    /// Keys configured with the preset and merged into every fetched set ("channel_secret"), and that secret.
    var localKeys: JWKSet?
    var localSecret: String? = nil
    var policy: RefreshPolicy

    /// Whether `other` names the same source with the same schedule (two verifiers sharing a keystore).
    func sameSource(_ other: RemoteKeys) -> Bool {
        url == other.url && discovery == other.discovery && localSecret == other.localSecret
            && policy.unknownKidCooldown == other.policy.unknownKidCooldown
            && policy.maxStaleness == other.policy.maxStaleness && policy.minMaxAge == other.policy.minMaxAge
            && policy.maxMaxAge == other.policy.maxMaxAge
    }
}
