/// Keys that do not come from a JWK: HMAC secrets, PEM and DER public keys.
extension VerificationKey {
    /// An HMAC secret. Refused when shorter than the hash output of every
    /// algorithm it could be used with (RFC 7518 §3.2), unless `allowShortSecret`: then it verifies every
    /// HMAC algorithm (or its declared one) whatever its length, and `isShortSecret` says so (the key
    /// sets' `warnings`). An empty secret is refused always.
    public convenience init(
        hmacSecret: [UInt8], kid: String? = nil, algorithm: JWTAlgorithm? = nil, allowShortSecret: Bool = false
    ) throws(KeyError) {
        let type = KeyType.oct(bytes: hmacSecret.count)
        let possible = allowShortSecret && !hmacSecret.isEmpty ? AlgorithmSet.hmac : type.possibleAlgorithms
        // The precomputed states are built for what the type allows; the declared alg narrows `algorithms` further.
        let secret = HMACSecret(hmacSecret, algorithms: possible)
        try self.init(kid: kid, type: type, declaredAlgorithm: algorithm, material: .secret(secret), possible: possible)
    }

    /// A PEM `PUBLIC KEY` or `CERTIFICATE` (the Firebase / Google `{kid: PEM}` form): one block, after
    /// any text, whitespace or byte order mark (RFC 7468 section 2; see `PEMText`).
    public convenience init(pem: String, kid: String? = nil, algorithm: JWTAlgorithm? = nil) throws(KeyError) {
        guard let block = PEMText.block(in: pem) else {
            throw KeyError(.notAKeySet, kid: kid, "PEM has no -----BEGIN line")
        }
        let blocks = PEMText.blockCount(pem)
        guard blocks == 1 else {
            throw KeyError(.malformed, kid: kid, "PEM holds \(blocks) blocks; give one key per PEM")
        }
        let key: OpenSSLPublicKey
        do { key = try OpenSSLPublicKey.fromPEM(String(block)) } catch { throw error.naming(kid) }
        try self.init(publicKey: key, kid: kid, algorithm: algorithm)
    }

    /// A DER SubjectPublicKeyInfo.
    public convenience init(spkiDER: [UInt8], kid: String? = nil, algorithm: JWTAlgorithm? = nil) throws(KeyError) {
        let key: OpenSSLPublicKey
        do { key = try OpenSSLPublicKey.fromSPKI(spkiDER) } catch { throw error.naming(kid) }
        try self.init(publicKey: key, kid: kid, algorithm: algorithm)
    }

    convenience init(publicKey: OpenSSLPublicKey, kid: String?, algorithm: JWTAlgorithm?) throws(KeyError) {
        let type: KeyType
        do { type = try publicKey.keyType() } catch { throw error.naming(kid) }
        try self.init(kid: kid, type: type, declaredAlgorithm: algorithm, material: .publicKey(publicKey))
    }
}
