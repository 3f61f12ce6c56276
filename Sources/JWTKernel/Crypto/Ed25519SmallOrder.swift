internal import COpenSSL

/// Ed25519 public keys of small order: the eight points of order 1, 2, 4 and 8 (the identity among them),
/// in their eight canonical and six non-canonical encodings (y = p and y = p + 1 for 0 and 1, and the sign
/// bit set on x = 0). Under such a key A, [k]A takes at most eight values whatever the message, so a
/// signature with R = [k]A and S = 0 verifies for many claims sets, and R = identity, S = 0 for every one
/// under the identity: no issuer publishes these, and anyone can sign for them. Refused when a key loads.
/// The list is libsodium's `has_small_order` (the y-coordinate with the sign bit cleared, 7 values);
/// `Fixtures/cctv` checks it against C2SP CCTV's vectors (every `low_order_A` key refused, no other).
enum Ed25519SmallOrder {
    /// The little-endian y-coordinates, top (sign) bit cleared.
    private static let blocked: [[UInt8]] = [
        [UInt8](repeating: 0, count: 32),  // y = 0: order 4 (x = +-sqrt(-1))
        [1] + [UInt8](repeating: 0, count: 31),  // y = 1: the identity, order 1
        [  // order 8
            0x26, 0xe8, 0x95, 0x8f, 0xc2, 0xb2, 0x27, 0xb0, 0x45, 0xc3, 0xf4, 0x89, 0xf2, 0xef, 0x98, 0xf0,
            0xd5, 0xdf, 0xac, 0x05, 0xd3, 0xc6, 0x33, 0x39, 0xb1, 0x38, 0x02, 0x88, 0x6d, 0x53, 0xfc, 0x05,
        ],
        [  // order 8
            0xc7, 0x17, 0x6a, 0x70, 0x3d, 0x4d, 0xd8, 0x4f, 0xba, 0x3c, 0x0b, 0x76, 0x0d, 0x10, 0x67, 0x0f,
            0x2a, 0x20, 0x53, 0xfa, 0x2c, 0x39, 0xcc, 0xc6, 0x4e, 0xc7, 0xfd, 0x77, 0x92, 0xac, 0x03, 0x7a,
        ],
        [0xec] + [UInt8](repeating: 0xff, count: 30) + [0x7f],  // y = p - 1: order 2
        [0xed] + [UInt8](repeating: 0xff, count: 30) + [0x7f],  // y = p, non-canonical 0
        [0xee] + [UInt8](repeating: 0xff, count: 30) + [0x7f],  // y = p + 1, non-canonical 1
    ]

    /// Whether a 32-byte encoded Ed25519 public key is one of the fourteen.
    static func contains(_ encoded: [UInt8]) -> Bool {
        guard encoded.count == 32 else { return false }
        var y = encoded
        y[31] &= 0x7f
        return blocked.contains(y)
    }
}

extension OpenSSLPublicKey {
    /// An Ed25519 key whose point has small order (`Ed25519SmallOrder`); false for every other key type.
    var isSmallOrderEd25519: Bool {
        guard EVP_PKEY_get_base_id(pkey) == EVP_PKEY_ED25519 else { return false }
        var raw = [UInt8](repeating: 0, count: 32)
        var length = raw.count
        guard EVP_PKEY_get_raw_public_key(pkey, &raw, &length) == 1, length == 32 else {
            ERR_clear_error()
            return true  // fail closed: a key whose bytes cannot be read is not trusted
        }
        return Ed25519SmallOrder.contains(raw)
    }
}
