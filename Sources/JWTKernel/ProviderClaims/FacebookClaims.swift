// Facebook Limited Login tokens (the iOS SDK's `AuthenticationToken`), verified with
// `ClaimsPolicy.facebook(audiences:nonce:)`.

/// The claims of a Facebook Limited Login OIDC token. The registered ones are in `standard` (`claims.sub` is the
/// app-scoped user ID); Facebook always sends `jti`.
///
/// The `user_*` claims come only when the user granted the matching permission (`user_friends`, `user_birthday`,
/// ...). Types follow the tokens Facebook issues and its SDKs read: `user_friends` an array of app-scoped user IDs,
/// `user_age_range` an object with `min` and/or `max`, `user_hometown` and `user_location` objects with `id` and
/// `name`. A claim of another type fails the decoding (`DecodingError`) rather than being dropped silently.
public struct FacebookClaims: ProviderClaims, Hashable {
    public var standard: StandardClaims
    /// The nonce the app passed (may be empty: Facebook sends `""` when none was given).
    public var nonce: String?
    public var atHash: String?
    public var email: String?
    public var name: String?
    public var givenName: String?
    public var middleName: String?
    public var familyName: String?
    /// A URL of the profile picture; it expires (its `ext` parameter), so copy the image if you keep it.
    public var picture: String?
    public var userFriends: [String]?
    /// As shown on the profile, `MM/DD/YYYY` (or a part of it, as the user chose to share).
    public var userBirthday: String?
    public var userAgeRange: AgeRange?
    public var userHometown: Place?
    public var userLocation: Place?
    public var userGender: String?
    public var userLink: String?

    /// `user_age_range`: bounds of the user's age, either may be absent (`{"min": 21}`).
    public struct AgeRange: Sendable, Hashable, Decodable {
        public var min: Int?
        public var max: Int?
    }

    /// `user_hometown`, `user_location`: a Facebook Page ID and its name.
    public struct Place: Sendable, Hashable, Decodable {
        public var id: String?
        public var name: String?
    }

    enum CodingKeys: String, CodingKey {
        case nonce, email, name, picture
        case atHash = "at_hash"
        case givenName = "given_name"
        case middleName = "middle_name"
        case familyName = "family_name"
        case userFriends = "user_friends"
        case userBirthday = "user_birthday"
        case userAgeRange = "user_age_range"
        case userHometown = "user_hometown"
        case userLocation = "user_location"
        case userGender = "user_gender"
        case userLink = "user_link"
    }

    public init(from decoder: any Decoder) throws {
        standard = try StandardClaims(from: decoder)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        nonce = try c.decodeIfPresent(String.self, forKey: .nonce)
        atHash = try c.decodeIfPresent(String.self, forKey: .atHash)
        email = try c.decodeIfPresent(String.self, forKey: .email)
        name = try c.decodeIfPresent(String.self, forKey: .name)
        givenName = try c.decodeIfPresent(String.self, forKey: .givenName)
        middleName = try c.decodeIfPresent(String.self, forKey: .middleName)
        familyName = try c.decodeIfPresent(String.self, forKey: .familyName)
        picture = try c.decodeIfPresent(String.self, forKey: .picture)
        userFriends = try c.decodeIfPresent([String].self, forKey: .userFriends)
        userBirthday = try c.decodeIfPresent(String.self, forKey: .userBirthday)
        userAgeRange = try c.decodeIfPresent(AgeRange.self, forKey: .userAgeRange)
        userHometown = try c.decodeIfPresent(Place.self, forKey: .userHometown)
        userLocation = try c.decodeIfPresent(Place.self, forKey: .userLocation)
        userGender = try c.decodeIfPresent(String.self, forKey: .userGender)
        userLink = try c.decodeIfPresent(String.self, forKey: .userLink)
    }
}
