/// One trusted JWE decryption key: a symmetric secret (`dir`, AES key wrap, AES-GCM key wrap) or a private key
/// (RSA-OAEP, ECDH-ES), and the key-management algorithms it may be used with. Immutable and shared across
/// threads like `VerificationKey`, and never one: a decryption key lives in a `DecryptionKeySet`, which no
/// verifier reads, and the key loaders of each side refuse the other's keys (`use`, `key_ops`, `alg`).
public final class DecryptionKey: Sendable, CustomStringConvertible {
    public let kid: String?
    /// The algorithms this key may decrypt with: its type (and, for secrets, length), narrowed by its `alg`.
    public let algorithms: Set<KeyManagementAlgorithm>

    enum Material: Sendable {
        case secret(SecretBytes)
        case rsa(OpenSSLPrivateKey)
        case ec(OpenSSLPrivateKey, EllipticCurve)
        case x25519(OpenSSLPrivateKey)
    }

    let material: Material

    /// The smallest RSA modulus accepted (RFC 7518 §4.3: 2048 bits or larger MUST be used).
    public static let minimumRSABits = 2048

    init(kid: String?, material: Material, declared: KeyManagementAlgorithm?) throws(KeyError) {
        let possible: Set<KeyManagementAlgorithm>
        switch material {
        case .secret(let secret):
            possible = Self.symmetricAlgorithms(length: secret.count)
            if possible.isEmpty {
                throw KeyError(
                    .weakKey, kid: kid,
                    "a \(secret.count)-byte secret fits no JWE algorithm (16, 24 or 32 bytes for key wrapping; "
                        + "16, 24, 32, 48 or 64 for dir)")
            }
        case .rsa(let key):
            guard key.bits >= Self.minimumRSABits else {
                throw KeyError(
                    .weakKey, kid: kid, "RSA key has \(key.bits) bits; at least \(Self.minimumRSABits) are required")
            }
            possible = [.rsaOAEP, .rsaOAEP256, .rsaOAEP384, .rsaOAEP512]
        case .ec(_, let curve):
            guard curve != .secp256k1 else {
                throw KeyError(.unsupportedType, kid: kid, "ECDH-ES is defined on P-256, P-384, P-521 and X25519")
            }
            possible = [.ecdhES, .ecdhESA128KW, .ecdhESA192KW, .ecdhESA256KW]
        case .x25519:
            possible = [.ecdhES, .ecdhESA128KW, .ecdhESA192KW, .ecdhESA256KW]
        }
        if let declared {
            guard possible.contains(declared) else {
                throw KeyError(.algorithmMismatch, kid: kid, "alg \(declared.rawValue) does not fit this key")
            }
            algorithms = [declared]
        } else {
            algorithms = possible
        }
        self.kid = kid
        self.material = material
    }

    /// What a secret of `length` bytes can do: `dir` for the content encryption of that key length, and the
    /// wrap algorithms of that key length.
    private static func symmetricAlgorithms(length: Int) -> Set<KeyManagementAlgorithm> {
        var out: Set<KeyManagementAlgorithm> = []
        if ContentEncryption.allCases.contains(where: { $0.keyLength == length }) { out.insert(.dir) }
        for alg in KeyManagementAlgorithm.allCases where alg.family == .symmetric && alg.wrapKeyLength == length {
            out.insert(alg)
        }
        return out
    }

    /// The secret's length, for `dir` (which must equal the content encryption's key length).
    var secretLength: Int? {
        if case .secret(let s) = material { return s.count }
        return nil
    }

    public var description: String {
        let kind: String
        switch material {
        case .secret(let s): kind = "oct(\(s.count * 8) bits)"
        case .rsa(let k): kind = "RSA(\(k.bits) bits)"
        case .ec(_, let c): kind = "EC(\(c.rawValue))"
        case .x25519: kind = "OKP(X25519)"
        }
        return
            "\(kid.map { "\"\($0)\"" } ?? "(no kid)") \(kind) [\(algorithms.map(\.rawValue).sorted().joined(separator: ","))]"
    }
}
