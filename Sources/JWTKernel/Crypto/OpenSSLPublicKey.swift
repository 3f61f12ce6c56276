internal import COpenSSL

/// One OpenSSL public key (`EVP_PKEY`), owned by this object: created once at
/// key-load time, freed in `deinit`. ARC carries the ownership, so a key set
/// replaced while verifications on the old one are in flight (key rotation,
/// the key store, the C library holding keys across calls) keeps every key
/// alive exactly as long as someone uses it.
///
/// OpenSSL allows concurrent verification with one `EVP_PKEY`, and nothing
/// here mutates it after init.
// Safety: @unchecked because `pkey` is a raw pointer; it is never mutated after init and freed only in deinit.
final class OpenSSLPublicKey: @unchecked Sendable {
    let pkey: OpaquePointer

    /// Takes ownership of `pkey`.
    init(adopting pkey: OpaquePointer) { self.pkey = pkey }

    deinit { EVP_PKEY_free(pkey) }

    /// What the key is; refuses key types JWS has no algorithm for.
    func keyType() throws(KeyError) -> KeyType {
        switch EVP_PKEY_get_base_id(pkey) {
        case EVP_PKEY_RSA:
            return .rsa(bits: Int(EVP_PKEY_get_bits(pkey)))
        case EVP_PKEY_EC:
            guard let curve = groupCurve() else {
                throw KeyError(.unsupportedType, "EC key on a curve JWS does not use")
            }
            try checkPublicKey()
            return .ec(curve)
        case EVP_PKEY_ED25519:
            return .okp(.ed25519)
        case EVP_PKEY_ED448:
            return .okp(.ed448)
        default:
            throw KeyError(.unsupportedType, "key type is not one JWS signs with")
        }
    }

    /// The exact length of a JWS signature by this key: `r || s` for ECDSA, the modulus size for RSA.
    func rawSignatureLength(_ type: KeyType) -> Int {
        switch type {
        case .ec(let curve): 2 * curve.coordinateLength
        case .okp(let curve): curve.signatureLength
        default: Int(EVP_PKEY_get_size(pkey))
        }
    }

    /// Same public key (not merely the same kid).
    func hasSameKey(as other: OpenSSLPublicKey) -> Bool {
        EVP_PKEY_eq(pkey, other.pkey) == 1
    }

    /// The ROCA fingerprint (CVE-2017-15361), for RSA keys.
    var hasROCAFingerprint: Bool { ROCA.isVulnerable(pkey) }

    private func groupCurve() -> EllipticCurve? {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { name in
            var length = 0
            guard EVP_PKEY_get_group_name(pkey, name.baseAddress, name.count, &length) == 1 else { return nil }
            let bytes = UnsafeRawBufferPointer(start: name.baseAddress, count: length)
            return EllipticCurve.allCases.first { $0.openSSLGroupName.utf8.elementsEqual(bytes) }
        }
    }

    /// Point on the curve, not the point at infinity, in the right subgroup.
    func checkPublicKey() throws(KeyError) {
        guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else {
            throw KeyError(.resourceFailure, "out of memory")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_public_check(ctx) == 1 else {
            ERR_clear_error()
            throw KeyError(.malformed, "EC public key is not a valid point on its curve")
        }
    }
}
