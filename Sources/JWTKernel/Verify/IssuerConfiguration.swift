/// One issuer a `MultiIssuerVerifier` accepts: its exact `iss` and the claims
/// policy its tokens must satisfy. Its keys come from the verifier's `KeyStore`.
public struct IssuerConfiguration: Sendable {
    /// The `iss` value that routes a token here (exact match, after JSON unescaping).
    public var issuer: String
    /// When `policy.issuers` is empty it is set to `[issuer]`, so `iss` is
    /// still checked by the policy after the signature, as for any verifier.
    public var policy: ClaimsPolicy

    public init(issuer: String, policy: ClaimsPolicy = ClaimsPolicy()) {
        self.issuer = issuer
        self.policy = policy
    }
}
