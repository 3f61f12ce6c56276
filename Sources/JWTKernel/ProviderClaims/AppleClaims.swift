// Sign in with Apple identity tokens (the `identityToken` an app receives, or the `id_token` of Apple's token
// endpoint), verified with `ClaimsPolicy.apple(audiences:nonce:)`.

/// The claims of a Sign in with Apple identity token. The registered ones (`iss`, `sub`, `aud`, `exp`, `iat`) are in
/// `standard` and read as `claims.sub`; `sub` is the user's stable identifier for your team.
///
/// `email_verified`, `is_private_email` and `nonce_supported` accept a JSON boolean or the string `"true"`/`"false"`:
/// Apple sends both (see `KeyedDecodingContainer.decodeLenientBool(forKey:)`). Every claim but the standard ones is
/// optional: Apple leaves `email` out after the first sign-in unless the app asked for it, and `real_user_status`,
/// `nonce` and `transfer_sub` appear only on some platforms and flows.
public struct AppleClaims: ProviderClaims, Hashable {
    public var standard: StandardClaims
    /// The user's email address, or their private relay address (`is_private_email`).
    public var email: String?
    public var emailVerified: Bool?
    /// Whether `email` is an Apple private relay address (`...@privaterelay.appleid.com`).
    public var isPrivateEmail: Bool?
    /// Apple's guess whether the user is a real person (iOS 14+ sign-ins only).
    public var realUserStatus: RealUserStatus?
    /// The nonce the app passed, as sent (apps usually pass the SHA-256 hex of their raw nonce).
    public var nonce: String?
    /// Whether the platform supports nonces; when `false`, a missing `nonce` is expected.
    public var nonceSupported: Bool?
    /// The user's identifier under the team that transferred the app to yours (app transfers only).
    public var transferSub: String?
    public var authTime: NumericDate?
    public var cHash: String?
    public var atHash: String?

    enum CodingKeys: String, CodingKey {
        case email, nonce
        case emailVerified = "email_verified"
        case isPrivateEmail = "is_private_email"
        case realUserStatus = "real_user_status"
        case nonceSupported = "nonce_supported"
        case transferSub = "transfer_sub"
        case authTime = "auth_time"
        case cHash = "c_hash"
        case atHash = "at_hash"
    }

    public init(from decoder: any Decoder) throws {
        standard = try StandardClaims(from: decoder)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        email = try c.decodeIfPresent(String.self, forKey: .email)
        emailVerified = try c.decodeLenientBoolIfPresent(forKey: .emailVerified)
        isPrivateEmail = try c.decodeLenientBoolIfPresent(forKey: .isPrivateEmail)
        realUserStatus = try c.decodeIfPresent(RealUserStatus.self, forKey: .realUserStatus)
        nonce = try c.decodeIfPresent(String.self, forKey: .nonce)
        nonceSupported = try c.decodeLenientBoolIfPresent(forKey: .nonceSupported)
        transferSub = try c.decodeIfPresent(String.self, forKey: .transferSub)
        authTime = try c.decodeIfPresent(NumericDate.self, forKey: .authTime)
        cHash = try c.decodeIfPresent(String.self, forKey: .cHash)
        atHash = try c.decodeIfPresent(String.self, forKey: .atHash)
    }
}

/// Apple's `real_user_status` (`ASUserDetectionStatus`): an integer, 0, 1 or 2. A value Apple adds later decodes as
/// `.unrecognized(value)` rather than failing the whole token, so an app keeps working and can still see the number.
/// A non-integer is a `DecodingError.typeMismatch`.
public enum RealUserStatus: Sendable, Hashable, Decodable {
    /// 0: detection is not supported on the platform the user signed in on.
    case unsupported
    /// 1: Apple could not tell; treat as any other new user.
    case unknown
    /// 2: the user is likely a real person.
    case likelyReal
    /// Any other value, kept as sent.
    case unrecognized(Int)

    public init(rawValue: Int) {
        switch rawValue {
        case 0: self = .unsupported
        case 1: self = .unknown
        case 2: self = .likelyReal
        default: self = .unrecognized(rawValue)
        }
    }

    public var rawValue: Int {
        switch self {
        case .unsupported: 0
        case .unknown: 1
        case .likelyReal: 2
        case .unrecognized(let value): value
        }
    }

    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(Int.self))
    }
}
