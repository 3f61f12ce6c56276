internal import COpenSSL

/// The cryptographic step: does `signature` over `signingInput` verify under
/// `key` with `alg`? The caller has already established that `key` may
/// verify `alg`; lengths are checked here, before OpenSSL sees anything.
@_spi(Internals)
public enum SignatureCheck {
    public static func verify(
        _ alg: JWTAlgorithm, key: VerificationKey,
        signingInput: UnsafeRawBufferPointer, signature: UnsafeRawBufferPointer,
        contexts: PKeyContextCache
    ) -> Bool {
        if let secret = key.material.secret {
            return secret.verify(alg, signingInput, tag: signature)
        }
        guard alg.family != .hmac, let publicKey = key.material.publicKey else { return false }
        guard signature.count == key.signatureLength else { return false }
        if let ctx = contexts.context(for: publicKey, alg) { return verify(alg, ctx, signingInput, signature) }
        // No reusable context on this OpenSSL: prepare one for this call only.
        guard let ctx = PKeyContextCache.make(publicKey.pkey, alg) else { return false }
        defer { PKeyContextCache.free(ctx, alg) }
        return verify(alg, ctx, signingInput, signature)
    }

    private static func verify(
        _ alg: JWTAlgorithm, _ ctx: OpaquePointer,
        _ signingInput: UnsafeRawBufferPointer, _ signature: UnsafeRawBufferPointer
    ) -> Bool {
        let ok: Bool
        switch alg.family {
        case .eddsa:
            ok = EVP_DigestVerify(ctx, bytes(signature), signature.count, bytes(signingInput), signingInput.count) == 1
        case .ecdsa:
            ok = withDigest(alg, signingInput) { digest in
                ECDSASignature.withDER(rawSignature: signature) { der in
                    EVP_PKEY_verify(ctx, bytes(der), der.count, bytes(digest), digest.count) == 1
                }
            }
        default:
            ok = withDigest(alg, signingInput) { digest in
                EVP_PKEY_verify(ctx, bytes(signature), signature.count, bytes(digest), digest.count) == 1
            }
        }
        if !ok { ERR_clear_error() }
        return ok
    }

    private static func withDigest<R>(
        _ alg: JWTAlgorithm, _ input: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R
    ) -> R {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { out in
            let n = SHA2State.digest(hashLength: alg.hashLength, input, into: out.baseAddress!)
            return body(UnsafeRawBufferPointer(start: out.baseAddress, count: n))
        }
    }

    @inline(__always)
    private static func bytes(_ b: UnsafeRawBufferPointer) -> UnsafePointer<UInt8>? {
        b.baseAddress?.assumingMemoryBound(to: UInt8.self)
    }
}
