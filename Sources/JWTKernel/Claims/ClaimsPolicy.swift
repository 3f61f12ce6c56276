/// What a verified token's header and claims must satisfy beyond the signature.
/// Defaults follow RFC 8725: `exp` required, 60 s of clock leeway, every
/// algorithm the key allows (the key always pins it further).
public struct ClaimsPolicy: Sendable {
    /// Algorithms accepted at all; a token outside this set is `alg_not_allowed`.
    public var algorithms: AlgorithmSet = .all
    /// Accepted `iss` values (exact match). Empty: `iss` is not checked.
    public var issuers: [String] = []
    /// Accepted audiences; the token's `aud` (string or array) must contain one. Empty: not checked,
    /// unless `audienceRequired`.
    public var audiences: [String] = []
    /// The policy is meaningless without an audience (an ID token is only meaningful for the app it was
    /// issued to: OpenID Connect Core §3.1.3.7, step 3): with no `audiences`, every token fails with
    /// `bad_audience` instead of being accepted whatever its `aud`. The provider presets set it, so a preset
    /// built with an empty client ID list fails closed even where no configuration check refused it.
    public var audienceRequired = false
    /// Seconds of clock skew tolerated on `exp`, `nbf` and `iat`.
    public var leeway: Int64 = 60
    public var requireExpiration = true
    /// Reject tokens whose `iat` lies in the future beyond the leeway (`issued_in_future`), as
    /// Google's libraries, PyJWT and joserfc do: a token cannot have been issued after now.
    public var rejectIssuedInFuture = true
    /// Reject tokens issued longer ago than this many seconds (requires `iat`).
    public var maxAge: Int64?
    /// Claims that must be present, whatever their value.
    public var requiredClaims: [String] = []
    /// Expected header `typ`, compared as a media type (case-insensitive, `application/` implied).
    public var expectedType: String?
    /// Expected `nonce` claim (exact match).
    public var expectedNonce: String?
    /// Conditions on claim values (`/scope` contains `read`, `/tenant` equals `acme`, ...), checked in
    /// order after every other check passed; the first that fails is `claim_requirement_failed`.
    public var claimRequirements: [ClaimRequirement] = []

    public init(
        algorithms: AlgorithmSet = .all,
        issuers: [String] = [],
        audiences: [String] = [],
        leeway: Int64 = 60,
        requireExpiration: Bool = true,
        rejectIssuedInFuture: Bool = true,
        maxAge: Int64? = nil,
        requiredClaims: [String] = [],
        expectedType: String? = nil,
        expectedNonce: String? = nil,
        claimRequirements: [ClaimRequirement] = []
    ) {
        self.algorithms = algorithms
        self.issuers = issuers
        self.audiences = audiences
        self.leeway = leeway
        self.requireExpiration = requireExpiration
        self.rejectIssuedInFuture = rejectIssuedInFuture
        self.maxAge = maxAge
        self.requiredClaims = requiredClaims
        self.expectedType = expectedType
        self.expectedNonce = expectedNonce
        self.claimRequirements = claimRequirements
    }
}
