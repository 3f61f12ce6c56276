// Firebase Authentication ID tokens, verified with `ClaimsPolicy.firebase(projectID:)`.

/// The claims of a Firebase Auth ID token. The registered ones are in `standard`; `claims.sub` and `userID` are the
/// Firebase user's UID (Firebase sends both). `firebase` says how the user signed in.
public struct FirebaseClaims: ProviderClaims, Hashable {
    public var standard: StandardClaims
    /// `user_id`: the same UID as `sub`.
    public var userID: String?
    public var email: String?
    public var emailVerified: Bool?
    public var phoneNumber: String?
    public var name: String?
    public var picture: String?
    public var authTime: NumericDate?
    public var firebase: Firebase

    /// The `firebase` claim.
    public struct Firebase: Sendable, Hashable, Decodable {
        /// `sign_in_provider`: `password`, `google.com`, `apple.com`, `phone`, `anonymous`, `custom`, ...
        public var signInProvider: String
        /// The user's identifiers at each linked provider (`"google.com": ["1031..."]`, `"email": ["a@b.c"]`);
        /// empty when the token has none (anonymous and custom-token users).
        public var identities: [String: [String]]
        /// The Identity Platform tenant ID, for multi-tenant projects.
        public var tenant: String?
        /// The second factor used (`phone`, `totp`) when the user signed in with multi-factor authentication.
        public var signInSecondFactor: String?

        enum CodingKeys: String, CodingKey {
            case identities, tenant
            case signInProvider = "sign_in_provider"
            case signInSecondFactor = "sign_in_second_factor"
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            signInProvider = try c.decode(String.self, forKey: .signInProvider)
            identities = try c.decodeIfPresent([String: [String]].self, forKey: .identities) ?? [:]
            tenant = try c.decodeIfPresent(String.self, forKey: .tenant)
            signInSecondFactor = try c.decodeIfPresent(String.self, forKey: .signInSecondFactor)
        }
    }

    enum CodingKeys: String, CodingKey {
        case email, name, picture, firebase
        case userID = "user_id"
        case emailVerified = "email_verified"
        case phoneNumber = "phone_number"
        case authTime = "auth_time"
    }

    public init(from decoder: any Decoder) throws {
        standard = try StandardClaims(from: decoder)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        userID = try c.decodeIfPresent(String.self, forKey: .userID)
        email = try c.decodeIfPresent(String.self, forKey: .email)
        emailVerified = try c.decodeLenientBoolIfPresent(forKey: .emailVerified)
        phoneNumber = try c.decodeIfPresent(String.self, forKey: .phoneNumber)
        name = try c.decodeIfPresent(String.self, forKey: .name)
        picture = try c.decodeIfPresent(String.self, forKey: .picture)
        authTime = try c.decodeIfPresent(NumericDate.self, forKey: .authTime)
        firebase = try c.decode(Firebase.self, forKey: .firebase)
    }
}
