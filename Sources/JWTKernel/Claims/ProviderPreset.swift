/// Everything the kernel needs to verify one identity provider's ID tokens, in
/// one place: its issuer(s), algorithms, where its keys are published and in
/// which format, and the claims policy. The README's provider table lists the same.
///
/// Use with a `KeyStore` (JWTKernelRemote's `KeyRefresher.add(preset:)` fetches
/// `keyURL`) and a `MultiIssuerVerifier(store:issuers: preset.issuers + ...)`.
public struct ProviderPreset: Sendable {
    public enum KeyFormat: String, Sendable {
        /// RFC 7517 JWK Set.
        case jwks
        /// Google's `{kid: "-----BEGIN CERTIFICATE-----..."}` map.
        case pemCertificateMap = "pem_certificate_map"
    }

    public let provider: String
    /// One route per accepted issuer spelling, all sharing the key set `keyIssuer`.
    public let issuers: [IssuerConfiguration]
    public let algorithms: AlgorithmSet
    public private(set) var keyURL: String
    public let keyFormat: KeyFormat
    /// The store entry the provider's keys are published under.
    public let keyIssuer: String
    /// Keys configured locally rather than fetched (LINE web login's channel secret).
    public let localKeys: JWKSet?
    /// What is checked beyond the signature, in words (for logs, docs and `jwtk`).
    public let checks: [String]

    init(
        provider: String, issuers: [String], policy: ClaimsPolicy, keyURL: String, keyFormat: KeyFormat = .jwks,
        localKeys: JWKSet? = nil, checks: [String]
    ) {
        self.provider = provider
        self.keyIssuer = issuers[0]
        self.issuers = issuers.map { IssuerConfiguration(issuer: $0, policy: policy, keyIssuer: issuers[0]) }
        self.algorithms = policy.algorithms
        self.keyURL = keyURL
        self.keyFormat = keyFormat
        self.localKeys = localKeys
        self.checks = checks
    }

    public var issuerNames: [String] { issuers.map(\.issuer) }

    /// The same preset (issuers, algorithms, claims, local keys) with its keys fetched from `keyURL`
    /// instead of the provider's: a mirror inside a company network, or a saved copy served locally.
    /// The mirror must serve the provider's format (`keyFormat`); what it serves is trusted as the provider's keys.
    public func mirrored(at keyURL: String) -> ProviderPreset {
        var copy = self
        copy.keyURL = keyURL
        return copy
    }

    /// Sign in with Apple. `audiences`: bundle ID or Services ID.
    public static func apple(audiences: [String], nonce: String? = nil) -> ProviderPreset {
        ProviderPreset(
            provider: "apple", issuers: ["https://appleid.apple.com"], policy: .apple(audiences: audiences, nonce: nonce),
            keyURL: "https://appleid.apple.com/auth/keys",
            checks: ["aud = bundle/Services ID", "sub, iat present", "nonce (SHA-256 of the app's raw nonce) if given"])
    }

    /// Google Sign-In; both issuer spellings route to the same keys.
    public static func google(audiences: [String], nonce: String? = nil) -> ProviderPreset {
        let policy = ClaimsPolicy.google(audiences: audiences, nonce: nonce)
        return ProviderPreset(
            provider: "google", issuers: policy.issuers, policy: policy,
            keyURL: "https://www.googleapis.com/oauth2/v3/certs",
            checks: ["aud = OAuth client ID", "sub, iat present", "nonce if given"])
    }

    /// Firebase Auth ID tokens of one project: issuer and audience from the project ID, keys as a certificate map.
    public static func firebase(projectID: String) -> ProviderPreset {
        ProviderPreset(
            provider: "firebase", issuers: ["https://securetoken.google.com/\(projectID)"],
            policy: .firebase(projectID: projectID),
            keyURL: "https://www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com",
            keyFormat: .pemCertificateMap,
            checks: ["aud = project ID", "sub, iat, auth_time present", "iat not in the future"])
    }

    /// Facebook Limited Login; both issuer spellings seen in the wild.
    public static func facebook(audiences: [String], nonce: String? = nil) -> ProviderPreset {
        let policy = ClaimsPolicy.facebook(audiences: audiences, nonce: nonce)
        return ProviderPreset(
            provider: "facebook", issuers: policy.issuers, policy: policy,
            keyURL: "https://limited.facebook.com/.well-known/oauth/openid/jwks/",
            checks: ["aud = app ID", "sub present", "nonce if given"])
    }

    /// LINE Login: ES256 tokens (native SDK, LIFF) verify with LINE's JWKS; web
    /// login's HS256 tokens (no kid) with the channel secret, when given. Each key
    /// stays bound to its algorithm, so neither can verify the other's tokens.
    public static func line(
        channelID: String, channelSecret: String? = nil, nonce: String? = nil
    ) throws(KeyError) -> ProviderPreset {
        var policy = ClaimsPolicy.line(audiences: [channelID], nonce: nonce)
        var local: JWKSet?
        if let channelSecret {
            local = JWKSet(keys: [try VerificationKey(hmacSecret: Array(channelSecret.utf8), algorithm: .hs256)])
        } else {
            policy.algorithms = AlgorithmSet([.es256])
        }
        return ProviderPreset(
            provider: "line", issuers: policy.issuers, policy: policy,
            keyURL: "https://api.line.me/oauth2/v2.1/certs", localKeys: local,
            checks: [
                "aud = channel ID", "sub present", "nonce if given",
                channelSecret == nil ? "ES256 only (no channel secret given)" : "HS256 with the channel secret",
            ])
    }

    /// Microsoft identity platform, one tenant: its v2.0 and v1 issuers.
    public static func microsoft(tenantID: String, audiences: [String]) -> ProviderPreset {
        let policy = ClaimsPolicy.microsoft(tenantID: tenantID, audiences: audiences)
        return ProviderPreset(
            provider: "microsoft", issuers: policy.issuers, policy: policy,
            keyURL: "https://login.microsoftonline.com/\(tenantID)/discovery/v2.0/keys",
            checks: ["aud = application (client) ID", "sub present", "iss = this tenant's v2.0 or v1 issuer"])
    }

    /// Microsoft identity platform, multi-tenant apps: the issuer is a template
    /// whose `{tenantid}` must equal the token's own `tid` claim.
    public static func microsoftMultiTenant(audiences: [String]) -> ProviderPreset {
        var policy = ClaimsPolicy.microsoft(tenantID: IssuerConfiguration.tenantPlaceholder, audiences: audiences)
        let templates = policy.issuers
        policy.issuers = []
        policy.requiredClaims.append("tid")
        return ProviderPreset(
            provider: "microsoft-multitenant", issuers: templates, policy: policy,
            keyURL: "https://login.microsoftonline.com/common/discovery/v2.0/keys",
            checks: ["aud = application (client) ID", "sub, tid present", "iss = template with {tenantid} = tid"])
    }
}
