// LINE Login ID tokens, verified with `ClaimsPolicy.line(audiences:nonce:)`.

/// The claims of a LINE Login ID token. The registered ones are in `standard` (`claims.sub` is the LINE user ID,
/// `claims.aud` the channel ID). `name` and `picture` come with the `profile` scope, `email` with `email` (and only
/// for channels approved for it).
public struct LINEClaims: ProviderClaims, Hashable {
    public var standard: StandardClaims
    public var authTime: NumericDate?
    public var nonce: String?
    /// How the user authenticated: `pwd`, `lineautologin`, `lineqr`, `linesso`, `mfa`.
    public var amr: [String]?
    public var name: String?
    public var picture: String?
    public var email: String?

    enum CodingKeys: String, CodingKey {
        case nonce, amr, name, picture, email
        case authTime = "auth_time"
    }

    public init(from decoder: any Decoder) throws {
        standard = try StandardClaims(from: decoder)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        authTime = try c.decodeIfPresent(NumericDate.self, forKey: .authTime)
        nonce = try c.decodeIfPresent(String.self, forKey: .nonce)
        amr = try c.decodeIfPresent([String].self, forKey: .amr)
        name = try c.decodeIfPresent(String.self, forKey: .name)
        picture = try c.decodeIfPresent(String.self, forKey: .picture)
        email = try c.decodeIfPresent(String.self, forKey: .email)
    }
}
