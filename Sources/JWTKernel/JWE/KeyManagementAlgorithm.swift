/// A JWE `alg` the kernel decrypts with (RFC 7518 §4): NGINX Plus's list, plus ECDH-ES on P-256/384/521 and
/// X25519. `RSA1_5` and `PBES2-*` are refused by design (`refusal(of:)`).
public enum KeyManagementAlgorithm: String, Sendable, CaseIterable {
    case dir
    case a128kw = "A128KW", a192kw = "A192KW", a256kw = "A256KW"
    case a128gcmkw = "A128GCMKW", a192gcmkw = "A192GCMKW", a256gcmkw = "A256GCMKW"
    case rsaOAEP = "RSA-OAEP", rsaOAEP256 = "RSA-OAEP-256", rsaOAEP384 = "RSA-OAEP-384", rsaOAEP512 = "RSA-OAEP-512"
    case ecdhES = "ECDH-ES"
    case ecdhESA128KW = "ECDH-ES+A128KW", ecdhESA192KW = "ECDH-ES+A192KW", ecdhESA256KW = "ECDH-ES+A256KW"

    /// Why a registered algorithm the kernel knows is refused, or nil. Static text (no allocation, no echo).
    static func refusal(of name: String) -> StaticString? {
        if name == "RSA1_5" {
            return "alg RSA1_5 is refused: PKCS #1 v1.5 key transport is a padding oracle (Bleichenbacher)"
        }
        if name.hasPrefix("PBES2-") {
            return "alg PBES2-* is refused: password-based keys, and p2c makes every token a cost the sender chooses"
        }
        return nil
    }

    /// What key type the algorithm needs.
    enum KeyFamily { case symmetric, rsa, ecdh }

    var family: KeyFamily {
        switch self {
        case .dir, .a128kw, .a192kw, .a256kw, .a128gcmkw, .a192gcmkw, .a256gcmkw: .symmetric
        case .rsaOAEP, .rsaOAEP256, .rsaOAEP384, .rsaOAEP512: .rsa
        case .ecdhES, .ecdhESA128KW, .ecdhESA192KW, .ecdhESA256KW: .ecdh
        }
    }

    /// The key-encryption key length for the AES key wrap and GCM wrap algorithms (and the KW step of
    /// ECDH-ES+A*KW); nil for the others.
    var wrapKeyLength: Int? {
        switch self {
        case .a128kw, .a128gcmkw, .ecdhESA128KW: 16
        case .a192kw, .a192gcmkw, .ecdhESA192KW: 24
        case .a256kw, .a256gcmkw, .ecdhESA256KW: 32
        default: nil
        }
    }

    /// True when the JWE Encrypted Key is empty (RFC 7518 §4.5, §4.6).
    var hasNoEncryptedKey: Bool { self == .dir || self == .ecdhES }
}

/// A JWE `enc` (RFC 7518 §5): AES-GCM and AES-CBC with HMAC-SHA-2.
public enum ContentEncryption: String, Sendable, CaseIterable {
    case a128gcm = "A128GCM", a192gcm = "A192GCM", a256gcm = "A256GCM"
    case a128cbcHS256 = "A128CBC-HS256", a192cbcHS384 = "A192CBC-HS384", a256cbcHS512 = "A256CBC-HS512"

    /// The content-encryption key's length in bytes (for CBC-HMAC, the MAC and encryption halves together).
    public var keyLength: Int {
        switch self {
        case .a128gcm: 16
        case .a192gcm: 24
        case .a256gcm: 32
        case .a128cbcHS256: 32
        case .a192cbcHS384: 48
        case .a256cbcHS512: 64
        }
    }

    var isGCM: Bool { self == .a128gcm || self == .a192gcm || self == .a256gcm }

    var ivLength: Int { isGCM ? AESGCM.ivLength : AESCBCHMAC.ivLength }

    var tagLength: Int { isGCM ? AESGCM.tagLength : keyLength / 2 }

    /// The plaintext, or nil when the tag does not verify (for CBC-HMAC checked before any decryption).
    func decrypt(
        key: SecretBytes, iv: [UInt8], aad: UnsafeRawBufferPointer, ciphertext: [UInt8], tag: [UInt8]
    ) -> [UInt8]? {
        key.withBytes { k in
            iv.withUnsafeBytes { i in
                ciphertext.withUnsafeBytes { c in
                    tag.withUnsafeBytes { t in
                        isGCM
                            ? AESGCM.decrypt(key: k, iv: i, aad: aad, ciphertext: c, tag: t)
                            : AESCBCHMAC.decrypt(key: k, iv: i, aad: aad, ciphertext: c, tag: t)
                    }
                }
            }
        }
    }
}
