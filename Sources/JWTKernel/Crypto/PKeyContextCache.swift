internal import COpenSSL

/// Per-thread OpenSSL verification contexts, prepared once per (key, alg).
///
/// `EVP_DigestVerifyInit` per token allocates a key context, fetches the
/// signature implementation under a lock and allocates provider state; with a
/// prepared context the per-token work is the hash and the public-key
/// operation. Contexts are not thread-safe, hence one cache per thread
/// (owned by `ThreadScratch`). Entries hold a strong reference to their key,
/// so an entry can never outlive the `EVP_PKEY` it was built for (`OpenSSLPublicKey` frees it only when the last reference goes); the cache
/// is bounded (1,024 entries) and evicts round-robin within a set, so retired keys are released eventually.
@_spi(Internals)
public final class PKeyContextCache {
    private struct Entry {
        let key: OpenSSLPublicKey
        let alg: JWTAlgorithm
        /// `EVP_PKEY_CTX` after `EVP_PKEY_verify_init` (RSA, ECDSA) or
        /// `EVP_MD_CTX` after `EVP_DigestVerifyInit` (EdDSA, which has no prehash).
        let ctx: OpaquePointer
    }

    /// 256 sets of 4 ways: a gateway that verifies tokens of thousands of keys
    /// (one per tenant) keeps a prepared context for the 1,024 most recent
    /// (key, alg) pairs per thread, and a lookup compares at most 4 entries.
    static let ways = 4
    static let sets = 256
    static var capacity: Int { ways * sets }
    private var slots: [Entry?]
    /// Next way to evict, per set (round-robin).
    private var victims: [UInt8]

    public init() {
        slots = Array(repeating: nil, count: Self.capacity)
        victims = Array(repeating: 0, count: Self.sets)
    }

    deinit {
        for entry in slots { if let entry { Self.free(entry) } }
    }

    /// OpenSSL 3.0 and 3.1 allow repeated one-shot `EVP_DigestVerify` calls on
    /// one EdDSA context; 3.2 and later refuse the second (openssl#23075), so
    /// there EdDSA gets a fresh context per call instead.
    static let reusesEdDSAContexts = OpenSSL_version_num() < 0x3020_0000

    /// The set of (key, alg): the key object's address (allocation-aligned, so
    /// its low bits carry nothing) mixed with the algorithm's bit by a multiply.
    @inline(__always)
    private static func set(_ key: OpenSSLPublicKey, _ alg: JWTAlgorithm) -> Int {
        let address = UInt64(UInt(bitPattern: ObjectIdentifier(key)))
        let mixed = (address ^ UInt64(alg.bit)) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed >> 56)  // top 8 bits: 0..<256
    }

    /// The prepared context for `key` and `alg`, or nil if OpenSSL refuses to
    /// build one or it cannot be reused (then the caller prepares one per call).
    func context(for key: OpenSSLPublicKey, _ alg: JWTAlgorithm) -> OpaquePointer? {
        if alg.family == .eddsa, !Self.reusesEdDSAContexts { return nil }
        let set = Self.set(key, alg)
        let base = set * Self.ways
        for i in base..<(base + Self.ways) {
            if let entry = slots[i], entry.key === key, entry.alg == alg { return entry.ctx }
        }
        guard let ctx = Self.make(key.pkey, alg) else { return nil }
        var slot = -1
        for i in base..<(base + Self.ways) where slots[i] == nil {
            slot = i
            break
        }
        if slot < 0 {
            slot = base + Int(victims[set])
            victims[set] = UInt8((Int(victims[set]) + 1) % Self.ways)
            if let old = slots[slot] { Self.free(old) }
        }
        slots[slot] = Entry(key: key, alg: alg, ctx: ctx)
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
