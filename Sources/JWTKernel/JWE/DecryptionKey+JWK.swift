/// Decryption keys from JWKs (RFC 7517, RFC 7518 §6, RFC 8037) and PEM private keys.
extension DecryptionKey {
    /// A single JWK with its private part. Refused: `use` other than `enc`; `key_ops` without `decrypt` or
    /// `unwrapKey`; an `alg` that is a signature algorithm or not one the kernel decrypts with (`RSA1_5`,
    /// `PBES2-*` included); a public key (no `d`), which cannot decrypt.
    public convenience init(jwk: JSONValue) throws(KeyError) {
        let members = try JWKMembers(jwk)
        let kid = members.kid

        if let use = try members.string("use"), use != "enc" {
            throw KeyError(.wrongUse, kid: kid, "\"use\" is \"\(use)\", not \"enc\": not a decryption key")
        }
        if let ops = jwk["key_ops"] {
            guard let list = ops.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
                throw KeyError(.malformed, kid: kid, "\"key_ops\" is not an array of strings")
            }
            guard list.contains(.string("decrypt")) || list.contains(.string("unwrapKey")) else {
                throw KeyError(.wrongUse, kid: kid, "\"key_ops\" includes neither \"decrypt\" nor \"unwrapKey\"")
            }
        }
        let declared: KeyManagementAlgorithm?
        var directEncryption: ContentEncryption? = nil
        if let name = try members.string("alg") {
            if let alg = KeyManagementAlgorithm(rawValue: name) {
                declared = alg
            } else if let enc = ContentEncryption(rawValue: name) {
                // A content encryption as a key's alg (RFC 7520 §5.6 does this) is a `dir` key for that enc.
                declared = .dir
                directEncryption = enc
            } else if JWTAlgorithm(rawValue: name) != nil {
                throw KeyError(.wrongUse, kid: kid, "alg \"\(name)\" is a signature algorithm: not a decryption key")
            } else if let why = KeyManagementAlgorithm.refusal(of: name) {
                throw KeyError(.unsupportedType, kid: kid, why.description)
            } else {
                throw KeyError(
                    .unsupportedType, kid: kid, "alg \"\(name)\" is not a JWE algorithm the kernel decrypts with")
            }
        } else {
            declared = nil
        }

        guard let kty = try members.string("kty") else { throw KeyError(.malformed, kid: kid, "missing \"kty\"") }
        let material: Material
        do throws(KeyError) {
            switch kty {
            case "oct":
                material = .secret(SecretBytes(try members.required("k")))
            case "RSA":
                guard jwk["d"] != nil else {
                    throw KeyError(.wrongUse, kid: kid, "an RSA public key cannot decrypt (no \"d\")")
                }
                let crtNames = ["p", "q", "dp", "dq", "qi"]
                let present = crtNames.filter { jwk[$0] != nil }
                guard present.isEmpty || present.count == crtNames.count else {
                    throw KeyError(.malformed, kid: kid, "RSA CRT members p, q, dp, dq, qi must all be present or none")
                }
                var crt: [[UInt8]]? = nil
                if !present.isEmpty {
                    var values: [[UInt8]] = []
                    for name in crtNames { values.append(try members.required(name)) }
                    crt = values
                }
                material = .rsa(
                    try OpenSSLPrivateKey.rsa(
                        n: try members.required("n"), e: try members.required("e"), d: try members.required("d"),
                        crt: crt))
            case "EC":
                guard let crvName = try members.string("crv") else {
                    throw KeyError(.malformed, kid: kid, "missing \"crv\"")
                }
                guard let curve = EllipticCurve(rawValue: crvName), curve != .secp256k1 else {
                    throw KeyError(.unsupportedType, kid: kid, "EC curve \"\(crvName)\" is not one ECDH-ES uses here")
                }
                guard jwk["d"] != nil else {
                    throw KeyError(.wrongUse, kid: kid, "an EC public key cannot decrypt (no \"d\")")
                }
                material = .ec(
                    try OpenSSLPrivateKey.ec(
                        curve: curve, x: try members.required("x"), y: try members.required("y"),
                        d: try members.required("d")),
                    curve)
            case "OKP":
                guard try members.string("crv") == "X25519" else {
                    throw KeyError(
                        .unsupportedType, kid: kid, "OKP curve is not X25519, the one JWE key agreement curve")
                }
                guard jwk["d"] != nil else {
                    throw KeyError(.wrongUse, kid: kid, "an X25519 public key cannot decrypt (no \"d\")")
                }
                let x = try members.bytes("x")
                if let x, ECDH.isSmallOrderX25519(x) {
                    throw KeyError(.malformed, kid: kid, "X25519 public key is of small order")
                }
                material = .x25519(try OpenSSLPrivateKey.x25519(d: try members.required("d"), x: x))
            default:
                throw KeyError(.unsupportedType, kid: kid, "unsupported \"kty\" \"\(kty)\"")
            }
        } catch {
            throw error.naming(kid)
        }
        if let enc = directEncryption, case .secret(let secret) = material, secret.count != enc.keyLength {
            throw KeyError(.algorithmMismatch, kid: kid, "alg \(enc.rawValue) needs a \(enc.keyLength)-byte key")
        }
        try self.init(kid: kid, material: material, declared: declared)
    }

    /// Parses one JWK from JSON text.
    public convenience init(jwkJSON: some Collection<UInt8>) throws(KeyError) {
        let value: JSONValue
        do { value = try JSONValue.parse(jwkJSON) } catch {
            throw KeyError(.malformed, "JWK is not valid JSON: \(error.message(locatedIn: jwkJSON))")
        }
        try self.init(jwk: value)
    }

    /// A symmetric secret (for `dir`, `A*KW`, `A*GCMKW`), optionally pinned to one algorithm.
    public convenience init(
        secret: [UInt8], kid: String? = nil, algorithm: KeyManagementAlgorithm? = nil
    )
        throws(KeyError)
    {
        try self.init(kid: kid, material: .secret(SecretBytes(secret)), declared: algorithm)
    }

    /// An unencrypted PEM private key (PKCS #8 `PRIVATE KEY`, `RSA PRIVATE KEY`, `EC PRIVATE KEY`): RSA for
    /// RSA-OAEP, P-256/384/521 or X25519 for ECDH-ES.
    public convenience init(
        pem: String, kid: String? = nil, algorithm: KeyManagementAlgorithm? = nil
    )
        throws(KeyError)
    {
        let key = try OpenSSLPrivateKey.fromPEM(pem)
        let material: Material
        switch key.kind {
        case .rsa: material = .rsa(key)
        case .ec(let curve): material = .ec(key, curve)
        case .x25519: material = .x25519(key)
        case .other: throw KeyError(.unsupportedType, kid: kid, "PEM private key is not RSA, EC or X25519")
        }
        try self.init(kid: kid, material: material, declared: algorithm)
    }
}
