import JWTKernel
import JWTKernelRemote

/// A secret given in the verifier's config rather than loaded or fetched: LINE web login's channel
/// secret ("channel_secret", HS256, as `ProviderPreset.line(channelSecret:)` in Swift). The keystore
/// publishes it for its issuer and merges it into every key set loaded (push) or fetched (pull) for
/// that issuer, the one place a secret joins a public key set (each key is pinned to its algorithm).
struct LocalSecret {
    /// The store entry it is published under (the first issuer, as in pull mode).
    let issuer: String
    /// The secret as configured, to tell a second verifier's secret for the same issuer apart.
    let secret: String
    let keys: JWKSet

    /// Checks the secret with the core's rules (at least as long as the hash: 32 bytes for HS256).
    init(channelSecret: String, issuer: String) throws(IssuerConfigurationError) {
        let preset: ProviderPreset
        do { preset = try ProviderPreset.line(channelID: "-", channelSecret: channelSecret) } catch {
            throw IssuerConfigurationError("\"channel_secret\": \(error.description)")
        }
        guard let keys = preset.localKeys else { throw IssuerConfigurationError("\"channel_secret\": no key made") }
        self.keys = keys
        self.issuer = issuer
        self.secret = channelSecret
    }
}
