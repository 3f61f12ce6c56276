import COpenSSL

/// Builds OpenSSL `EVP_PKEY` objects from key components, DER or PEM.
/// Only ever runs at key-load time; the hot path reuses what it returns.
enum OpenSSLPublicKey {
    // EVP_PKEY_PUBLIC_KEY is a compound macro Swift cannot import:
    // OSSL_KEYMGMT_SELECT_ALL_PARAMETERS (0x84) | OSSL_KEYMGMT_SELECT_PUBLIC_KEY (0x02).
    private static let selectPublicKey: Int32 = 0x86

    static func rsa(modulus n: [UInt8], exponent e: [UInt8]) throws(KeyError) -> OpaquePointer {
        let eDigits = e.drop { $0 == 0 }
        guard let nLast = n.last, nLast & 1 == 1 else { throw KeyError("RSA modulus is empty or even") }
        guard let eLast = eDigits.last, eLast & 1 == 1, !(eDigits.count == 1 && eLast == 1) else {
            throw KeyError("RSA exponent must be odd and greater than 1")
        }
        let bnN = BN_bin2bn(n, Int32(n.count), nil)
        let bnE = BN_bin2bn(e, Int32(e.count), nil)
        defer { BN_free(bnN); BN_free(bnE) }
        return try fromParams(type: "RSA") { bld in
            OSSL_PARAM_BLD_push_BN(bld, cName("n"), bnN) == 1
                && OSSL_PARAM_BLD_push_BN(bld, cName("e"), bnE) == 1
        }
    }

    static func ec(curve: EllipticCurve, x: [UInt8], y: [UInt8]) throws(KeyError) -> OpaquePointer {
        // RFC 7518 §6.2.1.2: coordinates are full-length, zero-padded octet strings.
        guard x.count == curve.coordinateLength, y.count == curve.coordinateLength else {
            throw KeyError("EC coordinates must be \(curve.coordinateLength) bytes for \(curve.rawValue)")
        }
        let point: [UInt8] = [0x04] + x + y
        let built = point.withUnsafeBytes { p in
            curve.openSSLGroupName.withCString { group in
                Result { () throws(KeyError) in
                    try fromParams(type: "EC") { bld in
                        OSSL_PARAM_BLD_push_utf8_string(bld, cName("group"), group, 0) == 1
                            && OSSL_PARAM_BLD_push_octet_string(bld, cName("pub"), p.baseAddress, p.count) == 1
                    }
                }
            }
        }
        // OpenSSL 3.0 decodes (and so validates) the point inside EVP_PKEY_fromdata.
        guard case .success(let pkey) = built else { throw KeyError("EC public key is not a valid point on \(curve.rawValue)") }
        do { try checkPublicKey(pkey) } catch { EVP_PKEY_free(pkey); throw error }
        return pkey
    }

    static func okp(curve: EdwardsCurve, x: [UInt8]) throws(KeyError) -> OpaquePointer {
        guard x.count == curve.publicKeyLength else {
            throw KeyError("\(curve.rawValue) public key must be \(curve.publicKeyLength) bytes")
        }
        let type = curve == .ed25519 ? EVP_PKEY_ED25519 : EVP_PKEY_ED448
        guard let pkey = EVP_PKEY_new_raw_public_key(type, nil, x, x.count) else {
            throw KeyError("OpenSSL refused the \(curve.rawValue) public key")
        }
        return pkey
    }

    /// The public key of a DER X.509 certificate (an `x5c` entry or a PEM certificate's body).
    static func fromCertificateDER(_ der: [UInt8]) throws(KeyError) -> OpaquePointer {
        try der.withUnsafeBufferPointer { buf in Result { () throws(KeyError) -> OpaquePointer in
            var p: UnsafePointer<UInt8>? = buf.baseAddress
            guard let cert = d2i_X509(nil, &p, buf.count) else { throw KeyError("certificate is not valid DER") }
            defer { X509_free(cert) }
            guard p == buf.baseAddress! + buf.count else { throw KeyError("certificate has trailing bytes after its DER") }
            guard let pkey = X509_get_pubkey(cert) else { throw KeyError("certificate has no usable public key") }
            return pkey
        } }.get()
    }

    /// A DER SubjectPublicKeyInfo.
    static func fromSPKI(_ der: [UInt8]) throws(KeyError) -> OpaquePointer {
        try der.withUnsafeBufferPointer { buf in Result { () throws(KeyError) -> OpaquePointer in
            var p: UnsafePointer<UInt8>? = buf.baseAddress
            guard let pkey = d2i_PUBKEY(nil, &p, buf.count) else {
                throw KeyError("public key is not a valid DER SubjectPublicKeyInfo")
            }
            guard p == buf.baseAddress! + buf.count else {
                EVP_PKEY_free(pkey)
                throw KeyError("public key has trailing bytes after its DER")
            }
            return pkey
        } }.get()
    }

    /// A PEM `CERTIFICATE` or `PUBLIC KEY` block.
    static func fromPEM(_ pem: String) throws(KeyError) -> OpaquePointer {
        let bytes = Array(pem.utf8)
        return try bytes.withUnsafeBytes { raw in Result { () throws(KeyError) -> OpaquePointer in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { throw KeyError("out of memory") }
            defer { BIO_free(bio) }
            if pem.contains("-----BEGIN CERTIFICATE-----") {
                guard let cert = PEM_read_bio_X509(bio, nil, nil, nil) else { throw KeyError("PEM certificate does not parse") }
                defer { X509_free(cert) }
                guard let pkey = X509_get_pubkey(cert) else { throw KeyError("certificate has no usable public key") }
                return pkey
            }
            if pem.contains("-----BEGIN PUBLIC KEY-----") {
                guard let pkey = PEM_read_bio_PUBKEY(bio, nil, nil, nil) else { throw KeyError("PEM public key does not parse") }
                return pkey
            }
            throw KeyError("PEM holds neither a CERTIFICATE nor a PUBLIC KEY")
        } }.get()
    }

    /// What an imported `EVP_PKEY` is; refuses key types JWS has no algorithm for.
    static func keyType(of pkey: OpaquePointer) throws(KeyError) -> KeyType {
        switch EVP_PKEY_get_base_id(pkey) {
        case EVP_PKEY_RSA:
            return .rsa(bits: Int(EVP_PKEY_get_bits(pkey)))
        case EVP_PKEY_EC:
            var name = [CChar](repeating: 0, count: 64)
            var len = 0
            guard EVP_PKEY_get_group_name(pkey, &name, name.count, &len) == 1,
                  let curve = EllipticCurve.allCases.first(where: {
                      $0.openSSLGroupName == String(decoding: name.prefix(len).map { UInt8(bitPattern: $0) }, as: UTF8.self)
                  })
            else { throw KeyError("EC key on a curve JWS does not use") }
            try checkPublicKey(pkey)
            return .ec(curve)
        case EVP_PKEY_ED25519:
            return .okp(.ed25519)
        case EVP_PKEY_ED448:
            return .okp(.ed448)
        default:
            throw KeyError("key type is not one JWS signs with")
        }
    }

    /// Point on the curve, not the point at infinity, in the right subgroup.
    private static func checkPublicKey(_ pkey: OpaquePointer) throws(KeyError) {
        guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else { throw KeyError("out of memory") }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_public_check(ctx) == 1 else {
            ERR_clear_error()
            throw KeyError("EC public key is not a valid point on its curve")
        }
    }

    /// OSSL_PARAM_BLD keeps the name pointer until `to_param`, so names must be
    /// static C strings (the `OSSL_PKEY_PARAM_*` macros import as Swift Strings,
    /// whose bridged C strings die after each call). Values per <openssl/core_names.h>.
    private static func cName(_ name: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
    }

    private static func fromParams(type: String, _ push: (OpaquePointer) -> Bool) throws(KeyError) -> OpaquePointer {
        guard let bld = OSSL_PARAM_BLD_new() else { throw KeyError("out of memory") }
        defer { OSSL_PARAM_BLD_free(bld) }
        guard push(bld), let params = OSSL_PARAM_BLD_to_param(bld) else { throw KeyError("cannot build \(type) key parameters") }
        defer { OSSL_PARAM_free(params) }
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, type, nil) else { throw KeyError("OpenSSL has no \(type) support") }
        defer { EVP_PKEY_CTX_free(ctx) }
        var pkey: OpaquePointer?
        guard EVP_PKEY_fromdata_init(ctx) == 1, EVP_PKEY_fromdata(ctx, &pkey, selectPublicKey, params) == 1, let pkey else {
            ERR_clear_error()
            throw KeyError("OpenSSL refused the \(type) public key")
        }
        return pkey
    }
}
