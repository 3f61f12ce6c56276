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
