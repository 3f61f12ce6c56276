import CBenchPeers

/// openssl-floor (C, openssl_floor.c): the least work OpenSSL must do per token, with
/// everything token-independent done once. A reference for how much of openssl-raw is the
/// typical caller's overhead (a digest context and a digest fetch per call, key setup in
/// HMAC()) rather than the cryptography itself.
enum OpenSSLFloor {
    static func runner(_ f: Fixtures, alg: String, token: String) throws -> Runner? {
        guard cb_floor_supports(alg) != 0 else { return nil }
        let key = try f.keyMaterial(alg)
        let handle = CHandle(cb_floor_new(alg, token, token.utf8.count, key, key.count), release: cb_floor_free)
        guard let handle else { throw BenchError("openssl-floor setup failed for \(alg)") }
        // One thread only (the handle's EVP_PKEY_CTX holds per-call state): no batch cell.
        return { n in
            var ok = 0
            for _ in 0..<n { ok += Int(cb_floor_verify(handle.pointer)) }
            return ok
        }
    }
}
