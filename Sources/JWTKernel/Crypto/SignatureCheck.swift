import COpenSSL

/// The cryptographic step: does `signature` over `signingInput` verify under
/// `key` with `alg`? The caller has already established that `key` may
/// verify `alg`; lengths are checked here, before OpenSSL sees anything.
enum SignatureCheck {
    static func verify(
        _ alg: JWTAlgorithm, key: VerificationKey,
        signingInput: UnsafeRawBufferPointer, signature: UnsafeRawBufferPointer
    ) -> Bool {
        switch alg.family {
        case .hmac:
            return verifyHMAC(alg, key: key, signingInput: signingInput, signature: signature)
        case .ecdsa:
            guard signature.count == key.signatureLength else { return false }
            return ECDSASignature.withDER(rawSignature: signature) { der in
                digestVerify(key.pkey!, Digests.md(for: alg), padding: nil, der, signingInput)
            }
        case .rsaPKCS1:
            guard signature.count == key.signatureLength else { return false }
            return digestVerify(key.pkey!, Digests.md(for: alg), padding: RSA_PKCS1_PADDING, signature, signingInput)
        case .rsaPSS:
            guard signature.count == key.signatureLength else { return false }
            return digestVerify(key.pkey!, Digests.md(for: alg), padding: RSA_PKCS1_PSS_PADDING, signature, signingInput)
        case .eddsa:
            guard signature.count == key.signatureLength else { return false }
            return digestVerify(key.pkey!, nil, padding: nil, signature, signingInput)
        }
    }

    private static func verifyHMAC(
        _ alg: JWTAlgorithm, key: VerificationKey,
        signingInput: UnsafeRawBufferPointer, signature: UnsafeRawBufferPointer
    ) -> Bool {
        // Truncated tags are refused: the tag is the full hash output (RFC 7518 §3.2).
        guard signature.count == alg.hashLength else { return false }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { mac in
            var macLength: UInt32 = 0
            let ok = key.secret.withUnsafeBytes { secret in
                HMAC(Digests.md(for: alg), secret.baseAddress, Int32(secret.count),
                     signingInput.baseAddress?.assumingMemoryBound(to: UInt8.self), signingInput.count,
                     mac.baseAddress, &macLength) != nil
            }
            // Constant time, so timing reveals nothing about how much of a forged tag matched.
            return ok && Int(macLength) == signature.count
                && CRYPTO_memcmp(mac.baseAddress, signature.baseAddress, signature.count) == 0
        }
    }

    private static func digestVerify(
        _ pkey: OpaquePointer, _ md: OpaquePointer?, padding: Int32?,
        _ signature: UnsafeRawBufferPointer, _ signingInput: UnsafeRawBufferPointer
    ) -> Bool {
        guard let ctx = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(ctx) }
        var pctx: OpaquePointer?
        guard EVP_DigestVerifyInit(ctx, &pctx, md, nil, pkey) == 1 else { ERR_clear_error(); return false }
        if let padding {
            guard EVP_PKEY_CTX_set_rsa_padding(pctx, padding) == 1 else { ERR_clear_error(); return false }
            // PSS per RFC 7518 §3.5: salt as long as the hash, MGF1 with the same hash (OpenSSL's default).
            if padding == RSA_PKCS1_PSS_PADDING, EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) != 1 {
                ERR_clear_error()
                return false
            }
        }
        let rc = EVP_DigestVerify(ctx, signature.baseAddress?.assumingMemoryBound(to: UInt8.self), signature.count,
                                  signingInput.baseAddress?.assumingMemoryBound(to: UInt8.self), signingInput.count)
        if rc != 1 { ERR_clear_error() }
        return rc == 1
    }
}
