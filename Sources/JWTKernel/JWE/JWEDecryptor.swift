/// Decrypts compact JWE tokens (RFC 7516) with a `DecryptionKeySet`. Immutable and thread-safe.
///
/// The order, each step before any work of the next: the size limit; the five segments, strictly decoded; the
/// protected header, strictly parsed, with the refusals of `JWEHeader` (`zip`, `crit`, `RSA1_5`, `PBES2-*`);
/// the shape the algorithms fix (IV and tag lengths, an encrypted key present or absent and of the wrapped
/// length); the candidate keys by `kid` and `alg`; the content key from each candidate in turn; the content
/// decryption, tag first. Every failure after the shape checks is `decryption_failed` with one detail, and a
/// content key that no candidate could recover is replaced by a random one so that the content decryption
/// still runs (RFC 7516 §11.5): the answer and its time do not say which step failed.
public struct JWEDecryptor: Sendable {
    public let keys: DecryptionKeySet
    /// Tokens longer than this are `too_large` before any decoding.
    public let maxTokenSize: Int

    public init(keys: DecryptionKeySet, maxTokenSize: Int = JWTVerifier.defaultMaxTokenSize) {
        self.keys = keys
        self.maxTokenSize = maxTokenSize
    }

    /// The one error of every decryption failure (a fixed detail: no step is named).
    @_spi(Internals) public static let failed = JWTError(.decryptionFailed, "the token does not decrypt")

    public func decrypt(_ token: String) throws(JWTError) -> DecryptedJWE {
        try JWTVerifier.withBytes(token) { (bytes) throws(JWTError) in try decrypt(bytes) }
    }

    public func decrypt(_ token: UnsafeRawBufferPointer) throws(JWTError) -> DecryptedJWE {
        guard token.count <= maxTokenSize else { throw JWTError(.tooLarge, "token exceeds the size limit") }
        let jwe = try CompactJWE(token)
        let header = try JWEHeader(jwe.header)
        let enc = header.enc, alg = header.alg
        guard jwe.iv.count == enc.ivLength, jwe.tag.count == enc.tagLength else {
            throw JWTError(.malformed, "JWE IV or tag length does not fit enc")
        }
        if alg.hasNoEncryptedKey {
            guard jwe.encryptedKey.isEmpty else {
                throw JWTError(.malformed, "JWE encrypted key must be empty for this alg")
            }
        } else if alg.family == .symmetric || alg.family == .ecdh {
            // AES key wrap adds one 8-byte block; GCM key wrap adds nothing (its tag is a header parameter).
            let expected =
                alg == .a128gcmkw || alg == .a192gcmkw || alg == .a256gcmkw ? enc.keyLength : enc.keyLength + 8
            guard jwe.encryptedKey.count == expected else {
                throw JWTError(.malformed, "JWE encrypted key length does not fit alg and enc")
            }
        } else if jwe.encryptedKey.isEmpty {
            throw JWTError(.malformed, "JWE encrypted key is empty")
        }
        let parameters = try KeyParameters(header, alg: alg)
        let candidates = keys.candidates(kid: header.kid, alg: alg)
        guard !candidates.isEmpty else {
            throw header.kid == nil
                ? JWTError(.keyAlgMismatch, "no decryption key may decrypt this alg")
                : JWTError(.unknownKid, "no decryption key has the token's kid")
        }

        var recovered: (SecretBytes, DecryptionKey)? = nil
        for key in candidates where recovered == nil {
            if let cek = contentKey(with: key, alg: alg, enc: enc, encryptedKey: jwe.encryptedKey, parameters),
                cek.count == enc.keyLength
            {
                recovered = (cek, key)
            }
        }
        // RFC 7516 §11.5: on a failed unwrap go on with a random key, so the failure costs the same time and
        // ends in the same place as a bad tag.
        guard let cek = recovered?.0 ?? SecretBytes(random: enc.keyLength) else { throw Self.failed }
        let plaintext = jwe.encodedHeader.withUnsafeBytes { aad in
            enc.decrypt(key: cek, iv: jwe.iv, aad: aad, ciphertext: jwe.ciphertext, tag: jwe.tag)
        }
        guard let plaintext, let key = recovered?.1 else { throw Self.failed }
        return DecryptedJWE(
            keyManagement: alg, contentEncryption: enc, header: jwe.header, plaintextStorage: plaintext,
            contentType: header.cty, key: key, isNestedJWT: header.saysNestedJWT)
    }

    /// The header parameters the key management algorithms take (RFC 7518 §4.6.1, §4.7.1), read and shape-checked
    /// before any key is used.
    struct KeyParameters {
        var gcmIV: [UInt8] = [], gcmTag: [UInt8] = []
        var epk: JSONValue? = nil
        var apu: [UInt8] = [], apv: [UInt8] = []

        init(_ header: JWEHeader, alg: KeyManagementAlgorithm) throws(JWTError) {
            switch alg {
            case .a128gcmkw, .a192gcmkw, .a256gcmkw:
                guard let iv = try header.bytes("iv"), let tag = try header.bytes("tag"), iv.count == AESGCM.ivLength,
                    tag.count == AESGCM.tagLength
                else {
                    throw JWTError(.malformed, "AES-GCM key wrap needs a 96-bit iv and a 128-bit tag in the header")
                }
                gcmIV = iv
                gcmTag = tag
            case .ecdhES, .ecdhESA128KW, .ecdhESA192KW, .ecdhESA256KW:
                guard let epk = header.members["epk"], epk.objectValue != nil else {
                    throw JWTError(.malformed, "ECDH-ES needs an epk object in the header")
                }
                self.epk = epk
                apu = try header.bytes("apu") ?? []
                apv = try header.bytes("apv") ?? []
            default:
                break
            }
        }
    }

    /// The content key `key` recovers, or nil. Never throws: every failure here is the one decryption failure.
    private func contentKey(
        with key: DecryptionKey, alg: KeyManagementAlgorithm, enc: ContentEncryption, encryptedKey: [UInt8],
        _ p: KeyParameters
    ) -> SecretBytes? {
        switch (alg, key.material) {
        case (.dir, .secret(let secret)):
            return secret.count == enc.keyLength ? secret : nil
        case (.a128kw, .secret(let kek)), (.a192kw, .secret(let kek)), (.a256kw, .secret(let kek)):
            return kek.withBytes { k in encryptedKey.withUnsafeBytes { AESKeyWrap.unwrap(kek: k, wrapped: $0) } }
        case (.a128gcmkw, .secret(let kek)), (.a192gcmkw, .secret(let kek)), (.a256gcmkw, .secret(let kek)):
            let cek = kek.withBytes { k in
                p.gcmIV.withUnsafeBytes { iv in
                    p.gcmTag.withUnsafeBytes { tag in
                        encryptedKey.withUnsafeBytes { c in
                            AESGCM.decrypt(
                                key: k, iv: iv, aad: UnsafeRawBufferPointer(start: nil, count: 0), ciphertext: c,
                                tag: tag)
                        }
                    }
                }
            }
            guard var cek else { return nil }
            defer { wipe(&cek) }
            return SecretBytes(cek)
        case (.rsaOAEP, .rsa(let pkey)), (.rsaOAEP256, .rsa(let pkey)), (.rsaOAEP384, .rsa(let pkey)),
            (.rsaOAEP512, .rsa(let pkey)):
            let hash: RSAOAEP.Hash =
                switch alg {
                case .rsaOAEP: .sha1
                case .rsaOAEP256: .sha256
                case .rsaOAEP384: .sha384
                default: .sha512
                }
            return encryptedKey.withUnsafeBytes { RSAOAEP.decrypt(pkey, hash: hash, ciphertext: $0) }
        case (_, .ec(let pkey, let curve)):
            guard let peer = Self.ecPeer(p.epk, curve: curve) else { return nil }
            return agreedKey(pkey, peer: peer, alg: alg, enc: enc, encryptedKey: encryptedKey, p)
        case (_, .x25519(let pkey)):
            guard let peer = Self.x25519Peer(p.epk) else { return nil }
            return agreedKey(pkey, peer: peer, alg: alg, enc: enc, encryptedKey: encryptedKey, p)
        default:
            return nil
        }
    }

    /// ECDH-ES (RFC 7518 §4.6): Z, the Concat KDF to the content key (direct) or to the key-wrapping key (+A*KW).
    private func agreedKey(
        _ pkey: OpenSSLPrivateKey, peer: OpenSSLPublicKey, alg: KeyManagementAlgorithm, enc: ContentEncryption,
        encryptedKey: [UInt8], _ p: KeyParameters
    ) -> SecretBytes? {
        guard let z = ECDH.sharedSecret(pkey, peer: peer) else { return nil }
        let direct = alg == .ecdhES
        let algorithmID = Array((direct ? enc.rawValue : alg.rawValue).utf8)
        guard
            let derived = ConcatKDF.derive(
                z: z, keyLength: direct ? enc.keyLength : alg.wrapKeyLength!, algorithmID: algorithmID,
                partyU: p.apu, partyV: p.apv)
        else { return nil }
        if direct { return derived }
        return derived.withBytes { k in encryptedKey.withUnsafeBytes { AESKeyWrap.unwrap(kek: k, wrapped: $0) } }
    }

    /// The sender's ephemeral EC key: on the recipient's curve, a valid point (`OpenSSLPublicKey.ec` refuses
    /// points off the curve: the invalid-curve attack).
    private static func ecPeer(_ epk: JSONValue?, curve: EllipticCurve) -> OpenSSLPublicKey? {
        guard let epk, epk["kty"]?.stringValue == "EC", epk["crv"]?.stringValue == curve.rawValue,
            let x = epk["x"]?.stringValue.flatMap({ Base64URL.decode($0) }),
            let y = epk["y"]?.stringValue.flatMap({ Base64URL.decode($0) })
        else { return nil }
        return try? OpenSSLPublicKey.ec(curve: curve, x: x, y: y)
    }

    /// The sender's ephemeral X25519 key, never one of small order.
    private static func x25519Peer(_ epk: JSONValue?) -> OpenSSLPublicKey? {
        guard let epk, epk["kty"]?.stringValue == "OKP", epk["crv"]?.stringValue == "X25519",
            let x = epk["x"]?.stringValue.flatMap({ Base64URL.decode($0) })
        else { return nil }
        return ECDH.x25519PublicKey(x)
    }
}
