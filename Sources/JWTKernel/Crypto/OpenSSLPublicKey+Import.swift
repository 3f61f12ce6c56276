internal import COpenSSL

/// Builds keys from JWK components, DER or PEM. Runs only at key-load time;
/// the hot path reuses what it returns. Every path that fails after OpenSSL
/// allocated something frees it before throwing.
extension OpenSSLPublicKey {
    static func rsa(modulus n: [UInt8], exponent e: [UInt8]) throws(KeyError) -> OpenSSLPublicKey {
        let eDigits = e.drop { $0 == 0 }
        guard let nLast = n.last, nLast & 1 == 1 else { throw KeyError(.malformed, "RSA modulus is empty or even") }
        guard let eLast = eDigits.last, eLast & 1 == 1, !(eDigits.count == 1 && eLast == 1) else {
            throw KeyError(.malformed, "RSA exponent must be odd and greater than 1")
        }
        let bnN = BN_bin2bn(n, Int32(n.count), nil)
        let bnE = BN_bin2bn(e, Int32(e.count), nil)
        defer { BN_free(bnN); BN_free(bnE) }
        return OpenSSLPublicKey(
            adopting: try EVPKeyFromParams.make(type: "RSA", .publicKey) { bld in
                OSSL_PARAM_BLD_push_BN(bld, jwtk_ossl_pkey_param_rsa_n(), bnN) == 1
                    && OSSL_PARAM_BLD_push_BN(bld, jwtk_ossl_pkey_param_rsa_e(), bnE) == 1
            })
    }

    static func ec(curve: EllipticCurve, x: [UInt8], y: [UInt8]) throws(KeyError) -> OpenSSLPublicKey {
        // RFC 7518 §6.2.1.2: coordinates are full-length, zero-padded octet strings.
        guard x.count == curve.coordinateLength, y.count == curve.coordinateLength else {
            throw KeyError(.malformed, "EC coordinates must be \(curve.coordinateLength) bytes for \(curve.rawValue)")
        }
        let key: OpenSSLPublicKey
        do { key = OpenSSLPublicKey(adopting: try EVPKeyFromParams.ec(curve: curve, x: x, y: y)) } catch {
            throw KeyError(.malformed, "EC public key is not a valid point on \(curve.rawValue)")
        }
        try key.checkPublicKey()
        return key
    }

    static func okp(curve: EdwardsCurve, x: [UInt8]) throws(KeyError) -> OpenSSLPublicKey {
        guard x.count == curve.publicKeyLength else {
            throw KeyError(.malformed, "\(curve.rawValue) public key must be \(curve.publicKeyLength) bytes")
        }
        let type = curve == .ed25519 ? EVP_PKEY_ED25519 : EVP_PKEY_ED448
        guard let pkey = EVP_PKEY_new_raw_public_key(type, nil, x, x.count) else {
            ERR_clear_error()
            throw KeyError(.malformed, "OpenSSL refused the \(curve.rawValue) public key")
        }
        return OpenSSLPublicKey(adopting: pkey)
    }

    /// The public key of a DER X.509 certificate (an `x5c` entry or a PEM certificate's body).
    static func fromCertificateDER(_ der: [UInt8]) throws(KeyError) -> OpenSSLPublicKey {
        try der.withUnsafeBufferPointer { buf in
            Result { () throws(KeyError) -> OpenSSLPublicKey in
                var p: UnsafePointer<UInt8>? = buf.baseAddress
                guard let cert = d2i_X509(nil, &p, buf.count) else {
                    ERR_clear_error()
                    throw KeyError(.invalidCertificate, "certificate is not valid DER")
                }
                defer { X509_free(cert) }
                guard p == buf.baseAddress! + buf.count else {
                    throw KeyError(.invalidCertificate, "certificate has trailing bytes after its DER")
                }
                return try publicKey(of: cert)
            }
        }.get()
    }

    /// A DER SubjectPublicKeyInfo.
    static func fromSPKI(_ der: [UInt8]) throws(KeyError) -> OpenSSLPublicKey {
        try der.withUnsafeBufferPointer { buf in
            Result { () throws(KeyError) -> OpenSSLPublicKey in
                var p: UnsafePointer<UInt8>? = buf.baseAddress
                guard let pkey = d2i_PUBKEY(nil, &p, buf.count) else {
                    ERR_clear_error()
                    throw KeyError(.malformed, "public key is not a valid DER SubjectPublicKeyInfo")
                }
                let key = OpenSSLPublicKey(adopting: pkey)
                guard p == buf.baseAddress! + buf.count else {
                    throw KeyError(.malformed, "public key has trailing bytes after its DER")
                }
                return key
            }
        }.get()
    }

    /// A PEM `CERTIFICATE` or `PUBLIC KEY` block.
    static func fromPEM(_ pem: String) throws(KeyError) -> OpenSSLPublicKey {
        let bytes = Array(pem.utf8)
        return try bytes.withUnsafeBytes { raw in
            Result { () throws(KeyError) -> OpenSSLPublicKey in
                guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else {
                    throw KeyError(.resourceFailure, "out of memory")
                }
                defer { BIO_free(bio) }
                if pem.contains("-----BEGIN CERTIFICATE-----") {
                    guard let cert = PEM_read_bio_X509(bio, nil, nil, nil) else {
                        ERR_clear_error()
                        throw KeyError(.invalidCertificate, "PEM certificate does not parse")
                    }
                    defer { X509_free(cert) }
                    return try publicKey(of: cert)
                }
                if pem.contains("-----BEGIN PUBLIC KEY-----") {
                    guard let pkey = PEM_read_bio_PUBKEY(bio, nil, nil, nil) else {
                        ERR_clear_error()
                        throw KeyError(.malformed, "PEM public key does not parse")
                    }
                    return OpenSSLPublicKey(adopting: pkey)
                }
                // A private key is the commonest wrong file: say what it is and what to give instead.
                if pem.contains("PRIVATE KEY-----") {
                    throw KeyError(
                        .notAKeySet,
                        "PEM holds a private key, which verification never needs: give its public key "
                            + "(openssl pkey -in KEY -pubout) or its certificate")
                }
                throw KeyError(.notAKeySet, "PEM holds neither a CERTIFICATE nor a PUBLIC KEY")
            }
        }.get()
    }

    private static func publicKey(of cert: OpaquePointer) throws(KeyError) -> OpenSSLPublicKey {
        guard let pkey = X509_get_pubkey(cert) else {
            ERR_clear_error()
            throw KeyError(.invalidCertificate, "certificate has no usable public key")
        }
        return OpenSSLPublicKey(adopting: pkey)
    }
}
