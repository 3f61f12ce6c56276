/// One issuer a `MultiIssuerVerifier` accepts: its `iss`, the claims policy its
/// tokens must satisfy, and which key set in the `KeyStore` verifies them.
public struct IssuerConfiguration: Sendable {
    /// The `iss` value that routes a token here (exact match, after JSON
    /// unescaping), or a multi-tenant template holding `{tenantid}`
    /// (`https://login.microsoftonline.com/{tenantid}/v2.0`): then `iss` must
    /// equal the template with the token's own `tid` claim in place.
    public var issuer: String
    /// When `policy.issuers` is empty it is set to `[issuer]` for an exact
    /// issuer, so `iss` is still checked by the policy after the signature. A
    /// template is checked (against `tid`) when the token is routed.
    public var policy: ClaimsPolicy
    /// The store entry whose keys verify this issuer's tokens; several issuers
    /// may share one (Google's two spellings, Microsoft's v1 and v2 issuers).
    public var keyIssuer: String

    public init(issuer: String, policy: ClaimsPolicy = ClaimsPolicy(), keyIssuer: String? = nil) {
        self.issuer = issuer
        self.policy = policy
        self.keyIssuer = keyIssuer ?? issuer
    }

    /// The placeholder of a multi-tenant issuer template.
    public static let tenantPlaceholder = "{tenantid}"

    public var isTemplate: Bool { issuer.contains(Self.tenantPlaceholder) }
}
