/// What the forward-auth agent checks and answers, beside the verifier (which holds the issuers and their
/// policies, from the issuer configuration file).
public struct ForwardAuthConfiguration: Sendable {
    /// Where the token is looked for, in order (default: the `Authorization` header only).
    public var tokenSources: [TokenSource] = [.authorization]
    /// The claims answered as response headers on a 200.
    public var claimHeaders: [ClaimHeader] = []
    /// The RFC 6750 challenge's realm.
    public var realm = "api"

    public init(tokenSources: [TokenSource] = [.authorization], claimHeaders: [ClaimHeader] = [], realm: String = "api")
    {
        self.tokenSources = tokenSources
        self.claimHeaders = claimHeaders
        self.realm = realm
    }
}
