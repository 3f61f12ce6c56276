internal import COpenSSL

/// Builds an `EVP_PKEY` from OpenSSL parameters: the one builder behind `OpenSSLPublicKey` and `OpenSSLPrivateKey`
/// made from JWK members, so both free what OpenSSL allocated on every path and refuse a key the same way.
/// Runs only at key-load time.
enum EVPKeyFromParams {
    /// What the parameters hold: a public key, or a key pair with its secret part.
    enum Part {
        case publicKey, keyPair

        var selection: Int32 {
            self == .publicKey ? jwtk_evp_pkey_public_key_selection() : jwtk_evp_pkey_keypair_selection()
        }
        var noun: String { self == .publicKey ? "public key" : "private key" }
    }

    /// `push` adds the key's parameters to a builder; the names it uses come from the shim (static C strings,
    /// which OSSL_PARAM_BLD keeps until `to_param`). The caller owns the key returned.
    static func make(type: String, _ part: Part, _ push: (OpaquePointer) -> Bool) throws(KeyError) -> OpaquePointer {
        guard let bld = OSSL_PARAM_BLD_new() else { throw KeyError(.resourceFailure, "out of memory") }
        defer { OSSL_PARAM_BLD_free(bld) }
        guard push(bld), let params = OSSL_PARAM_BLD_to_param(bld) else {
            throw KeyError(.resourceFailure, "cannot build \(type) key parameters")
        }
        defer { OSSL_PARAM_free(params) }
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, type, nil) else {
            throw KeyError(.resourceFailure, "OpenSSL has no \(type) support")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        var pkey: OpaquePointer?
        guard EVP_PKEY_fromdata_init(ctx) == 1, EVP_PKEY_fromdata(ctx, &pkey, part.selection, params) == 1,
            let pkey
        else {
            ERR_clear_error()
            throw KeyError(.malformed, "OpenSSL refused the \(type) \(part.noun)")
        }
        return pkey
    }

    /// An EC key on `curve` from the uncompressed point `x`, `y` (full-length coordinates, checked by the
    /// callers) and, for a key pair, the scalar `d`. OpenSSL 3.0 decodes (and so validates) the point here.
    static func ec(
        curve: EllipticCurve, x: [UInt8], y: [UInt8], d: OpaquePointer? = nil
    ) throws(KeyError)
        -> OpaquePointer
    {
        let point: [UInt8] = [0x04] + x + y
        let built = point.withUnsafeBytes { p in
            curve.openSSLGroupName.withCString { group in
                Result { () throws(KeyError) in
                    try make(type: "EC", d == nil ? .publicKey : .keyPair) { bld in
                        OSSL_PARAM_BLD_push_utf8_string(bld, jwtk_ossl_pkey_param_group_name(), group, 0) == 1
                            && OSSL_PARAM_BLD_push_octet_string(
                                bld, jwtk_ossl_pkey_param_pub_key(), p.baseAddress, p.count) == 1
                            && (d.map { OSSL_PARAM_BLD_push_BN(bld, jwtk_ossl_pkey_param_priv_key(), $0) == 1 } ?? true)
                    }
                }
            }
        }
        return try built.get()
    }
}
