internal import COpenSSL

/// The raw ECDH shared secret Z for JWE's `ECDH-ES` (RFC 7518 §4.6), on P-256/384/521 and X25519 (RFC 8037 §3.2).
///
/// The sender's ephemeral key comes from the token, so it is hostile: an EC point must lie on the recipient's
/// curve (an invalid-curve point would leak the private key a few bits per token), which `OpenSSLPublicKey.ec`
/// and the derivation's own peer check enforce; an X25519 key of small order is refused outright, and an
/// all-zero Z too (RFC 7748 §6.1), so no token can force a known shared secret.
enum ECDH {
    /// Z, or nil when the peer key is refused or the derivation fails.
    static func sharedSecret(_ key: OpenSSLPrivateKey, peer: OpenSSLPublicKey) -> SecretBytes? {
        guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, key.pkey, nil) else { return nil }
        defer {
            EVP_PKEY_CTX_free(ctx)
            ERR_clear_error()
        }
        var length = 0
        guard EVP_PKEY_derive_init(ctx) == 1, EVP_PKEY_derive_set_peer_ex(ctx, peer.pkey, 1) == 1,
            EVP_PKEY_derive(ctx, nil, &length) == 1, length > 0, length <= 133
        else { return nil }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { buf -> SecretBytes? in
            defer { OPENSSL_cleanse(buf.baseAddress, buf.count) }
            var written = length
            guard EVP_PKEY_derive(ctx, buf.baseAddress, &written) == 1, written == length else { return nil }
            // RFC 7748 §6.1: an all-zero X25519 output means a small-order peer. (On the NIST curves a zero
            // x-coordinate is a valid shared point; their peers are checked to be on the curve instead.)
            if EVP_PKEY_get_base_id(key.pkey) == EVP_PKEY_X25519 {
                var nonzero: UInt8 = 0
                for b in buf[0..<written] { nonzero |= b }
                guard nonzero != 0 else { return nil }
            }
            return SecretBytes(UnsafeRawBufferPointer(start: buf.baseAddress, count: written))
        }
    }

    /// An X25519 public key from its 32 bytes, refusing the points of small order.
    static func x25519PublicKey(_ u: [UInt8]) -> OpenSSLPublicKey? {
        guard u.count == 32, !isSmallOrderX25519(u),
            let pkey = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, nil, u, 32)
        else {
            ERR_clear_error()
            return nil
        }
        return OpenSSLPublicKey(adopting: pkey)
    }

    /// The u-coordinates of the points of order 1, 2, 4 and 8 on Curve25519 and their non-canonical encodings
    /// (p-1, p, p+1), compared with the top bit masked as RFC 7748 §5 decodes them (libsodium's blocklist).
    private static let smallOrderX25519: [[UInt8]] = [
        [UInt8](repeating: 0, count: 32),
        [1] + [UInt8](repeating: 0, count: 31),
        hex("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800"),
        hex("5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157"),
        [0xEC] + [UInt8](repeating: 0xFF, count: 30) + [0x7F],
        [0xED] + [UInt8](repeating: 0xFF, count: 30) + [0x7F],
        [0xEE] + [UInt8](repeating: 0xFF, count: 30) + [0x7F],
    ]

    static func isSmallOrderX25519(_ u: [UInt8]) -> Bool {
        guard u.count == 32 else { return true }
        var masked = u
        masked[31] &= 0x7F
        var found = false
        for point in smallOrderX25519 {
            var diff: UInt8 = 0
            for i in 0..<32 { diff |= point[i] ^ masked[i] }
            found = found || diff == 0
        }
        return found
    }

    private static func hex(_ s: StaticString) -> [UInt8] {
        var out: [UInt8] = []
        var high: UInt8?
        for c in s.description.utf8 {
            let v = c <= 0x39 ? c - 0x30 : c - 0x57
            if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
        }
        return out
    }
}
