internal import COpenSSL

/// AES-GCM decryption with the JWE shape (RFC 7518 §5.3 content encryption, §4.7 key wrapping): a 96-bit IV
/// and a 128-bit tag, nothing else. Other IV lengths are refused rather than GHASHed (Wycheproof's `LongIv`
/// and `CounterWrap` notes: a wrong long-IV implementation leaks the authentication key, and JWE never needs one).
enum AESGCM {
    static let ivLength = 12
    static let tagLength = 16

    /// The plaintext, or nil when the key, IV or tag has the wrong length or the tag does not verify
    /// (OpenSSL compares it in constant time in `EVP_DecryptFinal_ex`). Nothing is returned before the tag
    /// has verified.
    static func decrypt(
        key: UnsafeRawBufferPointer, iv: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer,
        ciphertext: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer
    ) -> [UInt8]? {
        guard let cipher = Ciphers.gcm(keyLength: key.count), iv.count == ivLength, tag.count == tagLength,
            ciphertext.count < Int(Int32.max), aad.count < Int(Int32.max)
        else { return nil }
        return Ciphers.withContext { ctx -> [UInt8]? in
            var out = [UInt8](repeating: 0, count: max(ciphertext.count, 1))
            let ok = out.withUnsafeMutableBufferPointer { o -> Bool in
                var n: Int32 = 0, tail: Int32 = 0
                guard EVP_DecryptInit_ex2(ctx, cipher, nil, nil, nil) == 1,
                    EVP_CIPHER_CTX_ctrl(ctx, jwtk_evp_ctrl_gcm_set_ivlen(), Int32(ivLength), nil) == 1,
                    EVP_DecryptInit_ex2(ctx, nil, key.baseAddress, iv.baseAddress, nil) == 1
                else { return false }
                if aad.count > 0 {
                    guard EVP_DecryptUpdate(ctx, nil, &n, aad.baseAddress, Int32(aad.count)) == 1 else { return false }
                }
                n = 0
                if ciphertext.count > 0 {
                    guard
                        EVP_DecryptUpdate(
                            ctx, o.baseAddress, &n, ciphertext.baseAddress!.assumingMemoryBound(to: UInt8.self),
                            Int32(ciphertext.count)) == 1
                    else { return false }
                }
                guard
                    EVP_CIPHER_CTX_ctrl(
                        ctx, jwtk_evp_ctrl_gcm_set_tag(), Int32(tagLength),
                        UnsafeMutableRawPointer(mutating: tag.baseAddress))
                        == 1,
                    EVP_DecryptFinal_ex(ctx, o.baseAddress! + Int(n), &tail) == 1
                else { return false }
                return Int(n + tail) == ciphertext.count
            }
            guard ok else {
                OPENSSL_cleanse(&out, out.count)
                return nil
            }
            out.removeLast(out.count - ciphertext.count)
            return out
        }
    }
}
