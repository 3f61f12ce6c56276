// Google ID tokens (Google Sign-In, Sign in with Google, Google's OAuth 2.0 `id_token`), verified with
// `ClaimsPolicy.google(audiences:nonce:)`.

/// The claims of a Google ID token. The registered ones are in `standard` (`claims.sub` is the user's Google account
/// ID, stable; never key an account on `email`). Profile claims (`name`, `picture`, ...) come only with the
/// `profile` scope, `email` and `email_verified` only with `email`, and `hd` only for Google Workspace accounts.
///
/// `email_verified` also accepts the string `"true"`/`"false"`, as older Google tokens sent it.
public struct GoogleClaims: ProviderClaims, Hashable {
    public var standard: StandardClaims
    public var email: String?
    public var emailVerified: Bool?
    /// The Google Workspace domain of the account; absent for consumer accounts. Check it, not the email's domain,
    /// to restrict sign-in to an organisation.
    public var hd: String?
    public var name: String?
    public var picture: String?
    public var givenName: String?
    public var familyName: String?
    public var locale: String?
    /// The client ID of the presenter; differs from `aud` when an Android or iOS client obtains a token for a server.
    public var azp: String?
    public var nonce: String?
    public var atHash: String?

    enum CodingKeys: String, CodingKey {
        case email, hd, name, picture, locale, azp, nonce
        case emailVerified = "email_verified"
        case givenName = "given_name"
        case familyName = "family_name"
        case atHash = "at_hash"
    }

    public init(from decoder: any Decoder) throws {
        standard = try StandardClaims(from: decoder)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        email = try c.decodeIfPresent(String.self, forKey: .email)
        emailVerified = try c.decodeLenientBoolIfPresent(forKey: .emailVerified)
        hd = try c.decodeIfPresent(String.self, forKey: .hd)
        name = try c.decodeIfPresent(String.self, forKey: .name)
        picture = try c.decodeIfPresent(String.self, forKey: .picture)
        givenName = try c.decodeIfPresent(String.self, forKey: .givenName)
        familyName = try c.decodeIfPresent(String.self, forKey: .familyName)
        locale = try c.decodeIfPresent(String.self, forKey: .locale)
        azp = try c.decodeIfPresent(String.self, forKey: .azp)
        nonce = try c.decodeIfPresent(String.self, forKey: .nonce)
        atHash = try c.decodeIfPresent(String.self, forKey: .atHash)
    }
}
