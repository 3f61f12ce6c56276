/// The JWS algorithms the kernel verifies (RFC 7518 §3, RFC 8037, RFC 9864).
/// `none` is deliberately absent: there is no way to ask for it.
public enum JWTAlgorithm: String, CaseIterable, Sendable {
    case hs256 = "HS256", hs384 = "HS384", hs512 = "HS512"
    case rs256 = "RS256", rs384 = "RS384", rs512 = "RS512"
    case ps256 = "PS256", ps384 = "PS384", ps512 = "PS512"
    case es256 = "ES256", es384 = "ES384", es512 = "ES512", es256k = "ES256K"
    /// RFC 8037's polymorphic name: Ed25519 or Ed448, decided by the key.
    case edDSA = "EdDSA"
    /// RFC 9864 fully-specified names.
    case ed25519 = "Ed25519", ed448 = "Ed448"

    public enum Family: Sendable { case hmac, rsaPKCS1, rsaPSS, ecdsa, eddsa }

    public var family: Family {
        switch self {
        case .hs256, .hs384, .hs512: .hmac
        case .rs256, .rs384, .rs512: .rsaPKCS1
        case .ps256, .ps384, .ps512: .rsaPSS
        case .es256, .es384, .es512, .es256k: .ecdsa
        case .edDSA, .ed25519, .ed448: .eddsa
        }
    }

    /// Output size of the hash the algorithm is built on (HMAC tag length, PSS salt length).
    public var hashLength: Int {
        switch self {
        case .hs256, .rs256, .ps256, .es256, .es256k: 32
        case .hs384, .rs384, .ps384, .es384: 48
        case .hs512, .rs512, .ps512, .es512: 64
        case .edDSA, .ed25519, .ed448: 0
        }
    }

    /// The bit of this algorithm in an `AlgorithmSet`.
    @inlinable public var bit: UInt32 {
        switch self {
        case .hs256: 1 << 0
        case .hs384: 1 << 1
        case .hs512: 1 << 2
        case .rs256: 1 << 3
        case .rs384: 1 << 4
        case .rs512: 1 << 5
        case .ps256: 1 << 6
        case .ps384: 1 << 7
        case .ps512: 1 << 8
        case .es256: 1 << 9
        case .es384: 1 << 10
        case .es512: 1 << 11
        case .es256k: 1 << 12
        case .edDSA: 1 << 13
        case .ed25519: 1 << 14
        case .ed448: 1 << 15
        }
    }
}
