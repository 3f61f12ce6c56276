/// The curves JWS signs with over ECDSA (RFC 7518 §3.4, RFC 8812 for secp256k1).
public enum EllipticCurve: String, Sendable, CaseIterable {
    case p256 = "P-256", p384 = "P-384", p521 = "P-521", secp256k1

    /// The only JWS algorithm defined for the curve (RFC 7518 §3.4, RFC 8812).
    var algorithm: JWTAlgorithm {
        switch self {
        case .p256: .es256
        case .p384: .es384
        case .p521: .es512
        case .secp256k1: .es256k
        }
    }

    /// Bytes per coordinate, which is also the length of `r` and `s` in a JWS signature.
    var coordinateLength: Int {
        switch self {
        case .p256, .secp256k1: 32
        case .p384: 48
        case .p521: 66
        }
    }
}
