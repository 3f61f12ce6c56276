internal import COpenSSL

/// AES-CBC with HMAC-SHA-2 authentication, JWE's `A128CBC-HS256`, `A192CBC-HS384`, `A256CBC-HS512`
/// (RFC 7518 §5.2). The key is MAC_KEY || ENC_KEY, halves of equal length; the tag is the first half of
/// HMAC(MAC_KEY, AAD || IV || ciphertext || AL), AL the AAD's length in bits as a 64-bit big-endian number.
///
/// The tag is computed and compared in constant time (`CRYPTO_memcmp`) before any byte is decrypted, so a
/// padding check never runs on a forged ciphertext: no padding oracle (RFC 7518 §5.2.2.2, Vaudenay).
enum AESCBCHMAC {
    static let ivLength = 16

    /// The plaintext, or nil for a key, IV or tag of the wrong length, a tag that does not verify, or (only
    /// then) bad padding.
    static func decrypt(
        key: UnsafeRawBufferPointer, iv: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer,
        ciphertext: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer
    ) -> [UInt8]? {
        let half = key.count / 2
        let md: OpaquePointer?
        switch key.count {
        case 32: md = Digests.sha256
        case 48: md = Digests.sha384
        case 64: md = Digests.sha512
        default: return nil
        }
        guard let md, let cipher = Ciphers.cbc(keyLength: half), iv.count == ivLength, tag.count == half,
            ciphertext.count % 16 == 0, ciphertext.count > 0, ciphertext.count < Int(Int32.max)
        else { return nil }
        guard
            macMatches(
                md, key: UnsafeRawBufferPointer(rebasing: key[0..<half]), aad: aad, iv: iv,
                ciphertext: ciphertext, tag: tag)
        else { return nil }
        return Ciphers.withContext { ctx -> [UInt8]? in
            var out = [UInt8](repeating: 0, count: ciphertext.count + 16)
            let written = out.withUnsafeMutableBufferPointer { o -> Int? in
                var n: Int32 = 0, tail: Int32 = 0
                guard
                    EVP_DecryptInit_ex2(
                        ctx, cipher, key.baseAddress! + half, iv.baseAddress!.assumingMemoryBound(to: UInt8.self), nil)
                        == 1,
                    EVP_DecryptUpdate(
                        ctx, o.baseAddress, &n, ciphertext.baseAddress!.assumingMemoryBound(to: UInt8.self),
                        Int32(ciphertext.count)) == 1,
                    EVP_DecryptFinal_ex(ctx, o.baseAddress! + Int(n), &tail) == 1
                else { return nil }
                return Int(n + tail)
            }
            guard let written else {
                OPENSSL_cleanse(&out, out.count)
                return nil
            }
            out.removeLast(out.count - written)
            return out
        }
    }

    /// HMAC over AAD || IV || ciphertext || AL, its first `tag.count` bytes compared in constant time.
    private static func macMatches(
        _ md: OpaquePointer, key: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer, iv: UnsafeRawBufferPointer,
        ciphertext: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer
    ) -> Bool {
        guard let mac = EVP_MAC_fetch(nil, "HMAC", nil) else { return false }
        defer { EVP_MAC_free(mac) }
        guard let ctx = EVP_MAC_CTX_new(mac) else { return false }
        defer { EVP_MAC_CTX_free(ctx) }
        let name = EVP_MD_get0_name(md)!
        var al = UInt64(aad.count) &* 8
        al = al.bigEndian
        var computed = [UInt8](repeating: 0, count: 64)
        let ok = withUnsafeTemporaryAllocation(of: OSSL_PARAM.self, capacity: 2) { params -> Bool in
            params[0] = OSSL_PARAM_construct_utf8_string("digest", UnsafeMutablePointer(mutating: name), 0)
            params[1] = OSSL_PARAM_construct_end()
            var length = 0
            return EVP_MAC_init(
                ctx, key.baseAddress?.assumingMemoryBound(to: UInt8.self), key.count, params.baseAddress) == 1
                && update(ctx, aad) && update(ctx, iv) && update(ctx, ciphertext)
                && withUnsafeBytes(of: &al) { update(ctx, $0) }
                && EVP_MAC_final(ctx, &computed, &length, computed.count) == 1 && length >= tag.count
        }
        ERR_clear_error()
        return ok && CRYPTO_memcmp(computed, tag.baseAddress, tag.count) == 0
    }

    private static func update(_ ctx: OpaquePointer, _ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.isEmpty || EVP_MAC_update(ctx, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.count) == 1
    }
}
