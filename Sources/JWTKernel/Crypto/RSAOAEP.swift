internal import COpenSSL

/// RSAES-OAEP decryption (RFC 8017 §7.1), JWE's `RSA-OAEP` (SHA-1) and `RSA-OAEP-256/384/512`, MGF1 with the
/// same hash (RFC 7518 §4.3, and the registrations of the longer hashes). OpenSSL blinds the private-key
/// operation and reports every padding failure the same way; the caller turns any failure into the one JWE
/// decryption error and goes on with a random key, so neither codes nor timing tell them apart (Manger).
enum RSAOAEP {
    enum Hash { case sha1, sha256, sha384, sha512 }

    static func md(_ hash: Hash) -> OpaquePointer? {
        switch hash {
        case .sha1: Ciphers.sha1
        case .sha256: Digests.sha256
        case .sha384: Digests.sha384
        case .sha512: Digests.sha512
        }
    }

    /// The decrypted key, or nil: a ciphertext not exactly the modulus length, bad padding, a wrong label.
    static func decrypt(
        _ key: OpenSSLPrivateKey, hash: Hash, ciphertext: UnsafeRawBufferPointer,
        label: UnsafeRawBufferPointer =
            UnsafeRawBufferPointer(start: nil, count: 0)
    ) -> SecretBytes? {
        guard ciphertext.count == key.size, let md = md(hash),
            let ctx = EVP_PKEY_CTX_new_from_pkey(nil, key.pkey, nil)
        else { return nil }
        defer {
            EVP_PKEY_CTX_free(ctx)
            ERR_clear_error()
        }
        guard EVP_PKEY_decrypt_init(ctx) == 1, EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING) == 1,
            EVP_PKEY_CTX_set_rsa_oaep_md(ctx, md) == 1, EVP_PKEY_CTX_set_rsa_mgf1_md(ctx, md) == 1,
            jwtk_set_rsa_oaep_label(ctx, label.baseAddress?.assumingMemoryBound(to: UInt8.self), label.count) == 1
        else { return nil }
        let out = SecretBytes(repeatElement(0, count: key.size))
        return out.withBytes { buf -> SecretBytes? in
            var length = buf.count
            guard
                EVP_PKEY_decrypt(
                    ctx, UnsafeMutablePointer(mutating: buf.baseAddress!.assumingMemoryBound(to: UInt8.self)),
                    &length, ciphertext.baseAddress!.assumingMemoryBound(to: UInt8.self), ciphertext.count) == 1
            else { return nil }
            return SecretBytes(UnsafeRawBufferPointer(start: buf.baseAddress, count: length))
        }
    }
}
