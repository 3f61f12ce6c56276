import COpenSSL

/// What a verification key is, as far as algorithm fitting is concerned.
public enum KeyType: Sendable, Equatable, CustomStringConvertible {
    case rsa(bits: Int)
    case ec(EllipticCurve)
    case okp(EdwardsCurve)
    case oct(bytes: Int)

    /// Every algorithm a key of this type could verify, before `alg`/`use`/`key_ops` narrow it.
    var possibleAlgorithms: AlgorithmSet {
        switch self {
        case .rsa: return .rsa
        case .ec(let curve): return AlgorithmSet([curve.algorithm])
        case .okp(.ed25519): return AlgorithmSet([.edDSA, .ed25519])
        case .okp(.ed448): return AlgorithmSet([.edDSA, .ed448])
        case .oct(let n):
            // RFC 7518 §3.2: the key must be at least as long as the hash output.
            return AlgorithmSet([JWTAlgorithm.hs256, .hs384, .hs512].filter { n >= $0.hashLength })
        }
    }

    public var description: String {
        switch self {
        case .rsa(let bits): "RSA-\(bits)"
        case .ec(let c): "EC \(c.rawValue)"
        case .okp(let c): "OKP \(c.rawValue)"
        case .oct(let n): "oct (\(n) bytes)"
        }
    }
}

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

    var openSSLGroupName: String {
        switch self {
        case .p256: "prime256v1"
        case .p384: "secp384r1"
        case .p521: "secp521r1"
        case .secp256k1: "secp256k1"
        }
    }

    init?(nid: Int32) {
        switch nid {
        case NID_X9_62_prime256v1: self = .p256
        case NID_secp384r1: self = .p384
        case NID_secp521r1: self = .p521
        case NID_secp256k1: self = .secp256k1
        default: return nil
        }
    }
}

public enum EdwardsCurve: String, Sendable {
    case ed25519 = "Ed25519", ed448 = "Ed448"

    var publicKeyLength: Int { self == .ed25519 ? 32 : 57 }
    var signatureLength: Int { self == .ed25519 ? 64 : 114 }
}

