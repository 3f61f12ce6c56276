internal import COpenSSL

/// One OpenSSL private key (`EVP_PKEY` with its secret part), owned by this object: built once when a
/// decryption key loads, freed in `deinit` (OpenSSL clears private key material when it frees it).
/// Only JWE decryption uses it: RSA-OAEP and ECDH-ES. The same ownership rules as `OpenSSLPublicKey`.
// Safety: @unchecked because `pkey` is a raw pointer; it is never mutated after init and freed only in deinit.
final class OpenSSLPrivateKey: @unchecked Sendable {
    let pkey: OpaquePointer

    /// Takes ownership of `pkey`.
    init(adopting pkey: OpaquePointer) { self.pkey = pkey }

    deinit { EVP_PKEY_free(pkey) }

    /// RSA modulus size in bits.
    var bits: Int { Int(EVP_PKEY_get_bits(pkey)) }

    /// RSA modulus size in bytes: the exact length of an RSA-OAEP encrypted key.
    var size: Int { Int(EVP_PKEY_get_size(pkey)) }

    /// Same key pair.
    func hasSameKey(as other: OpenSSLPrivateKey) -> Bool { EVP_PKEY_eq(pkey, other.pkey) == 1 }

    /// An RSA private key from its JWK members (RFC 7518 §6.3.2): `n`, `e`, `d`, and the CRT members
    /// `p`, `q`, `dp`, `dq`, `qi` all or none. With them the key pair is checked (`EVP_PKEY_check`).
    static func rsa(n: [UInt8], e: [UInt8], d: [UInt8], crt: [[UInt8]]?) throws(KeyError) -> OpenSSLPrivateKey {
        let numbers = [n, e, d] + (crt ?? [])
        let bns = numbers.map { BN_bin2bn($0, Int32($0.count), nil) }
        defer { for bn in bns { BN_clear_free(bn) } }
        guard !bns.contains(where: { $0 == nil }) else { throw KeyError(.resourceFailure, "out of memory") }
        let names = [
            jwtk_ossl_pkey_param_rsa_n(), jwtk_ossl_pkey_param_rsa_e(), jwtk_ossl_pkey_param_rsa_d(),
            jwtk_ossl_pkey_param_rsa_factor1(), jwtk_ossl_pkey_param_rsa_factor2(),
            jwtk_ossl_pkey_param_rsa_exponent1(), jwtk_ossl_pkey_param_rsa_exponent2(),
            jwtk_ossl_pkey_param_rsa_coefficient1(),
        ]
        let key = OpenSSLPrivateKey(
            adopting: try EVPKeyFromParams.make(type: "RSA", .keyPair) { bld in
                zip(names, bns).allSatisfy { OSSL_PARAM_BLD_push_BN(bld, $0.0, $0.1) == 1 }
            })
        if crt != nil { try key.check("RSA private key is not a consistent key pair") }
        return key
    }

    /// An EC private key on `curve` from its JWK members (RFC 7518 §6.2.2): the public point `x`, `y` and the
    /// scalar `d`, all full length; the pair is checked (the point is on the curve and is d·G).
    static func ec(curve: EllipticCurve, x: [UInt8], y: [UInt8], d: [UInt8]) throws(KeyError) -> OpenSSLPrivateKey {
        let n = curve.coordinateLength
        guard x.count == n, y.count == n, d.count == n else {
            throw KeyError(.malformed, "EC members must be \(n) bytes for \(curve.rawValue)")
        }
        guard let bnD = BN_bin2bn(d, Int32(d.count), nil) else { throw KeyError(.resourceFailure, "out of memory") }
        defer { BN_clear_free(bnD) }
        let key = OpenSSLPrivateKey(adopting: try EVPKeyFromParams.ec(curve: curve, x: x, y: y, d: bnD))
        try key.check("EC private key is not a valid key pair on \(curve.rawValue)")
        return key
    }

    /// An X25519 private key (RFC 8037 §2): `d` is the 32-byte scalar; `x`, when given, must be its public key.
    static func x25519(d: [UInt8], x: [UInt8]?) throws(KeyError) -> OpenSSLPrivateKey {
        guard d.count == 32, x == nil || x!.count == 32 else {
            throw KeyError(.malformed, "X25519 members must be 32 bytes")
        }
        guard let pkey = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, nil, d, d.count) else {
            ERR_clear_error()
            throw KeyError(.malformed, "OpenSSL refused the X25519 private key")
        }
        let key = OpenSSLPrivateKey(adopting: pkey)
        if let x {
            var derived = [UInt8](repeating: 0, count: 32)
            var length = 32
            guard EVP_PKEY_get_raw_public_key(pkey, &derived, &length) == 1, length == 32, derived == x else {
                ERR_clear_error()
                throw KeyError(.malformed, "X25519 \"x\" is not the public key of \"d\"")
            }
        }
        return key
    }

    /// A PEM `PRIVATE KEY` (PKCS #8), `RSA PRIVATE KEY` or `EC PRIVATE KEY` block, unencrypted.
    static func fromPEM(_ pem: String) throws(KeyError) -> OpenSSLPrivateKey {
        let bytes = Array(pem.utf8)
        return try bytes.withUnsafeBytes { raw in
            Result { () throws(KeyError) -> OpenSSLPrivateKey in
                guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else {
                    throw KeyError(.resourceFailure, "out of memory")
                }
                defer { BIO_free(bio) }
                // No password callback: an encrypted PEM fails here rather than prompting inside a host process.
                guard let pkey = PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil) else {
                    ERR_clear_error()
                    throw KeyError(.malformed, "PEM private key does not parse (or is encrypted)")
                }
                let key = OpenSSLPrivateKey(adopting: pkey)
                switch EVP_PKEY_get_base_id(pkey) {
                case EVP_PKEY_RSA: break
                case EVP_PKEY_EC, EVP_PKEY_X25519:
                    try key.check("private key is not a valid key pair")
                default:
                    throw KeyError(.unsupportedType, "PEM private key is not RSA, EC or X25519")
                }
                return key
            }
        }.get()
    }

    /// What the key is, for a decryption key's algorithms.
    enum Kind: Equatable {
        case rsa, ec(EllipticCurve), x25519, other
    }

    var kind: Kind {
        switch EVP_PKEY_get_base_id(pkey) {
        case EVP_PKEY_RSA: return .rsa
        case EVP_PKEY_X25519: return .x25519
        case EVP_PKEY_EC:
            return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { name in
                var length = 0
                guard EVP_PKEY_get_group_name(pkey, name.baseAddress, name.count, &length) == 1 else { return .other }
                let bytes = UnsafeRawBufferPointer(start: name.baseAddress, count: length)
                return EllipticCurve.allCases.first { $0.openSSLGroupName.utf8.elementsEqual(bytes) }.map(Kind.ec)
                    ?? .other
            }
        default: return .other
        }
    }

    private func check(_ reason: String) throws(KeyError) {
        guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else {
            throw KeyError(.resourceFailure, "out of memory")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_check(ctx) == 1 else {
            ERR_clear_error()
            throw KeyError(.malformed, reason)
        }
    }
}
