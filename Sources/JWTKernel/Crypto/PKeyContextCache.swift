internal import COpenSSL

/// Per-thread OpenSSL verification contexts, prepared once per (key, alg).
///
/// `EVP_DigestVerifyInit` per token allocates a key context, fetches the
/// signature implementation under a lock and allocates provider state; with a
/// prepared context the per-token work is the hash and the public-key
/// operation. Contexts are not thread-safe, hence one cache per thread
/// (owned by `ThreadScratch`). Entries hold a strong reference to their key,
/// so an entry can never outlive the `EVP_PKEY` it was built for (`OpenSSLPublicKey` frees it only when the last reference goes); the cache
/// is small and evicts round-robin, so retired keys are released eventually.
final class PKeyContextCache {
    private struct Entry {
        let key: OpenSSLPublicKey
        let alg: JWTAlgorithm
        /// `EVP_PKEY_CTX` after `EVP_PKEY_verify_init` (RSA, ECDSA) or
        /// `EVP_MD_CTX` after `EVP_DigestVerifyInit` (EdDSA, which has no prehash).
        let ctx: OpaquePointer
    }

    static let capacity = 32
    private var entries: [Entry] = []
    private var nextVictim = 0

    init() { entries.reserveCapacity(Self.capacity) }

    deinit {
        for i in entries.indices { Self.free(entries[i]) }
    }

    /// OpenSSL 3.0 and 3.1 allow repeated one-shot `EVP_DigestVerify` calls on
    /// one EdDSA context; 3.2 and later refuse the second (openssl#23075), so
    /// there EdDSA gets a fresh context per call instead.
    static let reusesEdDSAContexts = OpenSSL_version_num() < 0x3020_0000

    /// The prepared context for `key` and `alg`, or nil if OpenSSL refuses to
    /// build one or it cannot be reused (then the caller prepares one per call).
    func context(for key: OpenSSLPublicKey, _ alg: JWTAlgorithm) -> OpaquePointer? {
        if alg.family == .eddsa, !Self.reusesEdDSAContexts { return nil }
        for i in entries.indices where entries[i].key === key && entries[i].alg == alg {
            return entries[i].ctx
        }
        guard let ctx = Self.make(key.pkey, alg) else { return nil }
        let entry = Entry(key: key, alg: alg, ctx: ctx)
        if entries.count < Self.capacity {
            entries.append(entry)
        } else {
            Self.free(entries[nextVictim])
            entries[nextVictim] = entry
            nextVictim = (nextVictim + 1) % Self.capacity
        }
        return ctx
    }

    static func make(_ pkey: OpaquePointer, _ alg: JWTAlgorithm) -> OpaquePointer? {
        if alg.family == .eddsa {
            guard let md = EVP_MD_CTX_new() else { return nil }
            guard EVP_DigestVerifyInit(md, nil, nil, nil, pkey) == 1 else {
                EVP_MD_CTX_free(md)
                ERR_clear_error()
                return nil
            }
            return md
        }
        guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else { return nil }
        var ok = EVP_PKEY_verify_init(ctx) == 1 && EVP_PKEY_CTX_set_signature_md(ctx, Digests.md(for: alg)) == 1
        switch alg.family {
        case .rsaPKCS1:
            ok = ok && EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) == 1
        case .rsaPSS:
            // RFC 7518 §3.5: salt as long as the hash; MGF1 uses the signature hash by default.
            ok =
                ok && EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PSS_PADDING) == 1
                && EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx, RSA_PSS_SALTLEN_DIGEST) == 1
                && EVP_PKEY_CTX_set_rsa_mgf1_md(ctx, Digests.md(for: alg)) == 1
        default:
            break
        }
        guard ok else {
            EVP_PKEY_CTX_free(ctx)
            ERR_clear_error()
            return nil
        }
        return ctx
    }

    private static func free(_ entry: Entry) { free(entry.ctx, entry.alg) }

    static func free(_ ctx: OpaquePointer, _ alg: JWTAlgorithm) {
        if alg.family == .eddsa { EVP_MD_CTX_free(ctx) } else { EVP_PKEY_CTX_free(ctx) }
    }
}
