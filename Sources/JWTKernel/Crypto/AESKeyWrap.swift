internal import COpenSSL

/// AES Key Wrap (RFC 3394), the unwrapping side of JWE's `A128KW`/`A192KW`/`A256KW` and of `ECDH-ES+A*KW`
/// (RFC 7518 §4.4). OpenSSL checks the integrity value (the A6A6... IV); a wrong key or a modified wrapped key
/// gives nil, never partial output.
enum AESKeyWrap {
    /// The unwrapped key, or nil: `kek` not 16, 24 or 32 bytes, `wrapped` not at least 24 bytes in 8-byte
    /// blocks (RFC 3394 wraps n >= 2 blocks), or the integrity check fails.
    static func unwrap(kek: UnsafeRawBufferPointer, wrapped: UnsafeRawBufferPointer) -> SecretBytes? {
        guard let cipher = Ciphers.wrap(keyLength: kek.count), wrapped.count >= 24, wrapped.count % 8 == 0 else {
            return nil
        }
        return Ciphers.withContext { ctx -> SecretBytes? in
            EVP_CIPHER_CTX_set_flags(ctx, jwtk_evp_cipher_ctx_flag_wrap_allow())
            let out = SecretBytes(repeatElement(0, count: wrapped.count))
            return out.withBytes { buf -> SecretBytes? in
                let p = UnsafeMutablePointer(mutating: buf.baseAddress!.assumingMemoryBound(to: UInt8.self))
                var n: Int32 = 0, tail: Int32 = 0
                guard EVP_DecryptInit_ex2(ctx, cipher, kek.baseAddress, nil, nil) == 1,
                    EVP_DecryptUpdate(
                        ctx, p, &n, wrapped.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(wrapped.count))
                        == 1,
                    EVP_DecryptFinal_ex(ctx, p + Int(n), &tail) == 1,
                    Int(n + tail) == wrapped.count - 8
                else { return nil }
                return SecretBytes(UnsafeRawBufferPointer(start: buf.baseAddress, count: Int(n + tail)))
            }
        }
    }
}
