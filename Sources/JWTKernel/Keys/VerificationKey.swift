internal import CXXHash

/// One trusted key, parsed once into its OpenSSL form and reused for every
/// token. Immutable after init, so it is shared across threads freely.
public final class VerificationKey: Sendable, CustomStringConvertible {
    public let kid: String?
    public let type: KeyType
    /// The algorithms this key may verify: its type, narrowed by `alg`, `use` and `key_ops`.
    public let algorithms: AlgorithmSet

    let material: Material
    @_spi(Internals) public let kidBytes: [UInt8]
    let kidHash: UInt64
    /// The exact signature length this key's algorithms produce (0 for HMAC, whose tag length depends on the alg).
    let signatureLength: Int

    /// The smallest RSA modulus accepted (RFC 7518 §3.3 requires 2048 bits).
    public static let minimumRSABits = 2048

    /// `possible`: what the key could verify before its declared `alg` narrows it (nil: what its type allows).
    init(
        kid: String?, type: KeyType, declaredAlgorithm: JWTAlgorithm?, material: Material,
        possible: AlgorithmSet? = nil
    ) throws(KeyError) {
        let algorithms = try Self.algorithms(
            for: type, possible: possible ?? type.possibleAlgorithms, declared: declaredAlgorithm, kid: kid)
        if let key = material.publicKey, case .rsa = type, key.hasROCAFingerprint {
            throw KeyError(
                .compromisedKey, kid: kid,
                "RSA key has the ROCA fingerprint (CVE-2017-15361): its private key is recoverable")
        }
        if let key = material.publicKey, case .okp(.ed25519) = type, key.isSmallOrderEd25519 {
            throw KeyError(
                .weakKey, kid: kid,
                "Ed25519 public key is a point of small order: anyone can sign for it (R = identity, S = 0)")
        }
        self.kid = kid
        self.type = type
        self.algorithms = algorithms
        self.material = material
        self.kidBytes = Array((kid ?? "").utf8)
        self.kidHash = kidBytes.withUnsafeBytes { XXH3_64bits($0.baseAddress, $0.count) }
        signatureLength = material.publicKey?.rawSignatureLength(type) ?? 0
    }

    /// The key's type narrowed by its declared `alg`; refuses weak keys and
    /// declarations that do not fit.
    private static func algorithms(
        for type: KeyType, possible: AlgorithmSet, declared: JWTAlgorithm?, kid: String?
    ) throws(KeyError) -> AlgorithmSet {
        switch type {
        case .rsa(let bits) where bits < minimumRSABits:
            throw KeyError(.weakKey, kid: kid, "RSA key has \(bits) bits; at least \(minimumRSABits) are required")
        case .oct(let n) where possible.isEmpty:
            throw KeyError(
                .weakKey, kid: kid, "HMAC key has \(n) bytes; at least 32 are required (the hash output length)")
        default: break
        }
        guard let alg = declared else { return possible }
        guard possible.contains(alg) else {
            if case .oct(let n) = type, alg.family == .hmac {
                throw KeyError(
                    .weakKey, kid: kid, "HMAC key has \(n) bytes; \(alg.rawValue) needs at least \(alg.hashLength)")
            }
            throw KeyError(.algorithmMismatch, kid: kid, "alg \(alg.rawValue) does not fit a \(type) key")
        }
        // A declared alg pins exactly that name (RFC 7517 §4.4, RFC 8725 §3.1): a key declared `EdDSA` does not
        // verify `Ed25519` tokens nor the reverse, although the operation is the same, as PyJWT and joserfc do.
        return AlgorithmSet([alg])
    }

    /// Same public key or secret (not merely the same kid).
    func hasSameMaterial(as other: VerificationKey) -> Bool {
        if let a = material.publicKey, let b = other.material.publicKey { return a.hasSameKey(as: b) }
        if let a = material.secret, let b = other.material.secret { return a.hasSameSecret(as: b) }
        return false
    }

    /// True for HMAC secrets.
    var isSecret: Bool { material.kind == .secret }

    /// An HMAC secret shorter than the hash output of an algorithm it verifies (RFC 7518 §3.2), which
    /// only a load that allows short secrets produces; the shortest such hash output, or nil.
    public var shortSecretShortfall: JWTAlgorithm? {
        guard case .oct(let n) = type else { return nil }
        return algorithms.algorithms.first { $0.hashLength > n }
    }

    public var description: String {
        "\(kid.map { "\"\($0)\"" } ?? "(no kid)") \(type) [\(algorithms.algorithms.map(\.rawValue).joined(separator: ","))]"
    }
}
