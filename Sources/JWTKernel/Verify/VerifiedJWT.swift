/// A verified token that owns its data.
public struct VerifiedJWT: Sendable {
    public let algorithm: JWTAlgorithm
    public let kid: String?
    public let key: VerificationKey
    public let header: [UInt8]
    /// The claims JSON exactly as signed; `claims` parses it for arbitrary members.
    public let claimsJSON: [UInt8]
    public let issuer: String?
    public let subject: String?
    public let audiences: [String]
    public let expiresAt: Double?
    public let notBefore: Double?
    public let issuedAt: Double?
    public let nonce: String?
    public let authorizedParty: String?
    public let jwtID: String?
    /// All claims as a JSON tree, parsed once when the result is made (they were validated strictly before).
    public let claims: JSONValue

    public subscript(claim name: String) -> JSONValue? { claims[name] }
}

extension VerifiedJWT {
    init(
        algorithm: JWTAlgorithm, kid: String?, key: VerificationKey, header: [UInt8], claimsJSON: [UInt8],
        issuer: String?, subject: String?, audiences: [String], expiresAt: Double?, notBefore: Double?,
        issuedAt: Double?, nonce: String?, authorizedParty: String?, jwtID: String?
    ) {
        self.algorithm = algorithm
        self.kid = kid
        self.key = key
        self.header = header
        self.claimsJSON = claimsJSON
        self.issuer = issuer
        self.subject = subject
        self.audiences = audiences
        self.expiresAt = expiresAt
        self.notBefore = notBefore
        self.issuedAt = issuedAt
        self.nonce = nonce
        self.authorizedParty = authorizedParty
        self.jwtID = jwtID
        // The claims passed the strict parser on the way in, so this cannot fail; `.object([])` is unreachable.
        self.claims = (try? JSONValue.parse(claimsJSON)) ?? .object([])
    }
}
