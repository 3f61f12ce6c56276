import COpenSSL
import CXXHash

/// One trusted key, parsed once into its OpenSSL form and reused for every
/// token. Immutable after init, so it is shared across threads freely
/// (OpenSSL allows concurrent verification with one `EVP_PKEY`).
public final class VerificationKey: @unchecked Sendable, CustomStringConvertible {
    public let kid: String?
    public let type: KeyType
    /// The algorithms this key may verify: its type, narrowed by `alg`, `use` and `key_ops`.
    public let algorithms: AlgorithmSet

    let kidBytes: [UInt8]
    let kidHash: UInt64
    /// The OpenSSL key for asymmetric types; nil for HMAC secrets.
    let pkey: OpaquePointer?
    let secret: [UInt8]
    /// Precomputed HMAC states for HS256/384/512, for the ones this key allows.
    private let hmac256: HMACKey?, hmac384: HMACKey?, hmac512: HMACKey?
    /// The exact signature length this key's algorithms produce.
    let signatureLength: Int

    /// The smallest RSA modulus accepted (RFC 7518 §3.3 requires 2048 bits).
    public static let minimumRSABits = 2048

    /// Throws without taking ownership of `pkey`: the caller frees it on error.
    init(kid: String?, type: KeyType, declaredAlgorithm: JWTAlgorithm?, pkey: OpaquePointer?, secret: [UInt8]) throws(KeyError) {
        var algorithms = type.possibleAlgorithms
        switch type {
        case .rsa(let bits) where bits < Self.minimumRSABits:
            throw KeyError(kid: kid, "RSA key has \(bits) bits; at least \(Self.minimumRSABits) are required")
        case .rsa where ROCA.isVulnerable(pkey!):
            throw KeyError(kid: kid, "RSA key has the ROCA fingerprint (CVE-2017-15361): its private key is recoverable")
        case .oct(let n) where algorithms.isEmpty:
            throw KeyError(kid: kid, "HMAC key has \(n) bytes; at least 32 are required (the hash output length)")
        default: break
        }
        if let alg = declaredAlgorithm {
            guard algorithms.contains(alg) else {
                if case .oct(let n) = type, alg.family == .hmac {
                    throw KeyError(kid: kid, "HMAC key has \(n) bytes; \(alg.rawValue) needs at least \(alg.hashLength)")
                }
                throw KeyError(kid: kid, "alg \(alg.rawValue) does not fit a \(type) key")
            }
            algorithms = AlgorithmSet([alg])
            // EdDSA and Ed25519 name the same algorithm for an Ed25519 key (RFC 9864 §2).
            if case .okp(let curve) = type, alg == .edDSA || alg == (curve == .ed25519 ? .ed25519 : .ed448) {
                algorithms = type.possibleAlgorithms
            }
        }
        self.kid = kid
        self.type = type
        self.algorithms = algorithms
        self.kidBytes = Array((kid ?? "").utf8)
        self.kidHash = kidBytes.withUnsafeBytes { XXH3_64bits($0.baseAddress, $0.count) }
        self.pkey = pkey
        self.secret = secret
        self.hmac256 = algorithms.contains(.hs256) ? HMACKey(secret: secret, hashLength: 32) : nil
        self.hmac384 = algorithms.contains(.hs384) ? HMACKey(secret: secret, hashLength: 48) : nil
        self.hmac512 = algorithms.contains(.hs512) ? HMACKey(secret: secret, hashLength: 64) : nil
        switch type {
        case .rsa, .ec: self.signatureLength = pkey.map { Self.rawSignatureLength(type, $0) } ?? 0
        case .okp(let curve): self.signatureLength = curve.signatureLength
        case .oct: self.signatureLength = 0
        }
    }

    deinit { EVP_PKEY_free(pkey) }

    /// Same public key or secret (not merely the same kid).
    func hasSameMaterial(as other: VerificationKey) -> Bool {
        switch (pkey, other.pkey) {
        case let (a?, b?): return EVP_PKEY_eq(a, b) == 1
        case (nil, nil): return secret.count == other.secret.count && CRYPTO_memcmp(secret, other.secret, secret.count) == 0
        default: return false
        }
    }

    @inline(__always)
    func hmacKey(for alg: JWTAlgorithm) -> HMACKey? {
        switch alg {
        case .hs256: hmac256
        case .hs384: hmac384
        case .hs512: hmac512
        default: nil
        }
    }

    private static func rawSignatureLength(_ type: KeyType, _ pkey: OpaquePointer) -> Int {
        switch type {
        case .ec(let curve): 2 * curve.coordinateLength
        default: Int(EVP_PKEY_get_size(pkey))
        }
    }

    public var description: String {
        "\(kid.map { "\"\($0)\"" } ?? "(no kid)") \(type) [\(algorithms.algorithms.map(\.rawValue).joined(separator: ","))]"
    }
}

// MARK: - Constructors for keys that do not come from a JWK

extension VerificationKey {
    /// An HMAC secret. Refused when shorter than the hash output of every
    /// algorithm it could be used with (RFC 7518 §3.2).
    public convenience init(hmacSecret: [UInt8], kid: String? = nil, algorithm: JWTAlgorithm? = nil) throws(KeyError) {
        try self.init(kid: kid, type: .oct(bytes: hmacSecret.count), declaredAlgorithm: algorithm, pkey: nil, secret: hmacSecret)
    }

    /// A PEM `PUBLIC KEY` or `CERTIFICATE` (the Firebase / Google `{kid: PEM}` form).
    public convenience init(pem: String, kid: String? = nil, algorithm: JWTAlgorithm? = nil) throws(KeyError) {
        let pkey: OpaquePointer
        do { pkey = try OpenSSLPublicKey.fromPEM(pem) } catch { throw KeyError(kid: kid, error.reason) }
        try self.init(adopting: pkey, kid: kid, algorithm: algorithm)
    }

    /// A DER SubjectPublicKeyInfo.
    public convenience init(spkiDER: [UInt8], kid: String? = nil, algorithm: JWTAlgorithm? = nil) throws(KeyError) {
        let pkey: OpaquePointer
        do { pkey = try OpenSSLPublicKey.fromSPKI(spkiDER) } catch { throw KeyError(kid: kid, error.reason) }
        try self.init(adopting: pkey, kid: kid, algorithm: algorithm)
    }

    /// Takes ownership of `pkey`, freeing it if the key is refused.
    convenience init(adopting pkey: OpaquePointer, kid: String?, algorithm: JWTAlgorithm?) throws(KeyError) {
        do {
            let type = try OpenSSLPublicKey.keyType(of: pkey)
            try self.init(kid: kid, type: type, declaredAlgorithm: algorithm, pkey: pkey, secret: [])
        } catch {
            EVP_PKEY_free(pkey)
            throw KeyError(kid: kid, error.reason)
        }
    }
}
