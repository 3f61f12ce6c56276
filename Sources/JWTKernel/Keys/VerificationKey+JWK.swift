/// JSON Web Key import (RFC 7517, RFC 7518 §6, RFC 8037 §2).
extension VerificationKey {
    /// A single JWK: a public key or an HMAC secret. A private key (`d`) is refused: it is a decryption key.
    /// `allowShortHMACSecrets`: an `oct` key shorter than its hash output loads (see `init(hmacSecret:)`).
    public convenience init(jwk: JSONValue, allowShortHMACSecrets: Bool = false) throws(KeyError) {
        let members = try JWKMembers(jwk)
        let kid = members.kid

        guard let kty = try members.string("kty") else { throw KeyError(.malformed, kid: kid, "missing \"kty\"") }
        let algorithm: JWTAlgorithm?
        if let name = try members.string("alg") {
            guard let alg = JWTAlgorithm(rawValue: name) else {
                throw KeyError(.unsupportedType, kid: kid, "alg \"\(name)\" is not a JWS algorithm the kernel verifies")
            }
            algorithm = alg
        } else {
            algorithm = nil
        }
        // A JWK with a private part is a decryption (or signing) key: it never verifies (`DecryptionKey` takes it).
        if jwk["d"] != nil {
            throw KeyError(.wrongUse, kid: kid, "JWK holds a private key (\"d\"): publish its public part to verify")
        }
        if let use = try members.string("use"), use != "sig" {
            throw KeyError(.wrongUse, kid: kid, "\"use\" is \"\(use)\", not \"sig\"")
        }
        if let ops = jwk["key_ops"] {
            guard let list = ops.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
                throw KeyError(.malformed, kid: kid, "\"key_ops\" is not an array of strings")
            }
            guard list.contains(.string("verify")) else {
                throw KeyError(.wrongUse, kid: kid, "\"key_ops\" does not include \"verify\"")
            }
        }

        switch kty {
        case "oct":
            try self.init(
                hmacSecret: try members.required("k"), kid: kid, algorithm: algorithm,
                allowShortSecret: allowShortHMACSecrets)
            return
        case "RSA", "EC", "OKP":
            break
        default:
            throw KeyError(.unsupportedType, kid: kid, "unsupported \"kty\" \"\(kty)\"")
        }

        let key: OpenSSLPublicKey
        var fromCertificate = false
        do throws(KeyError) {
            if kty == "RSA", jwk["n"] != nil || jwk["x5c"] == nil {
                key = try OpenSSLPublicKey.rsa(modulus: try members.required("n"), exponent: try members.required("e"))
            } else if kty == "EC", jwk["x"] != nil || jwk["x5c"] == nil {
                guard let crvName = try members.string("crv") else {
                    throw KeyError(.malformed, kid: kid, "missing \"crv\"")
                }
                guard let curve = EllipticCurve(rawValue: crvName) else {
                    throw KeyError(.unsupportedType, kid: kid, "unsupported EC curve \"\(crvName)\"")
                }
                key = try OpenSSLPublicKey.ec(curve: curve, x: try members.required("x"), y: try members.required("y"))
            } else if kty == "OKP" {
                guard let crvName = try members.string("crv") else {
                    throw KeyError(.malformed, kid: kid, "missing \"crv\"")
                }
                guard let curve = EdwardsCurve(rawValue: crvName) else {
                    throw KeyError(.unsupportedType, kid: kid, "OKP curve \"\(crvName)\" is not a signature curve")
                }
                key = try OpenSSLPublicKey.okp(curve: curve, x: try members.required("x"))
            } else {
                key = try Self.leafCertificateKey(jwk["x5c"]!, kid: kid)
                fromCertificate = true
            }
            // RFC 7517 §4.7: the first certificate's key MUST match the JWK's own members; a JWK that says
            // two things is refused rather than trusted for either.
            if !fromCertificate, let x5c = jwk["x5c"] {
                guard try Self.leafCertificateKey(x5c, kid: kid).hasSameKey(as: key) else {
                    throw KeyError(
                        .invalidCertificate, kid: kid, "the \"x5c\" certificate's public key is not this JWK's key")
                }
            }
        } catch {
            throw error.naming(kid)
        }
        try self.init(publicKey: key, kid: kid, algorithm: algorithm)
        guard Self.matches(type, kty: kty, crv: try members.string("crv")) else {
            throw KeyError(.algorithmMismatch, kid: kid, "the certificate's key is not of kty \(kty)")
        }
    }

    /// Parses one JWK from JSON text.
    public convenience init(jwkJSON: some Collection<UInt8>) throws(KeyError) {
        let value: JSONValue
        do { value = try JSONValue.parse(jwkJSON) } catch {
            throw KeyError(.malformed, "JWK is not valid JSON: \(error.message(locatedIn: jwkJSON))")
        }
        try self.init(jwk: value)
    }

    /// The first `x5c` entry is the certificate holding the key (RFC 7517 §4.7);
    /// entries are standard base64 (not base64url) DER.
    private static func leafCertificateKey(_ x5c: JSONValue, kid: String?) throws(KeyError) -> OpenSSLPublicKey {
        guard let chain = x5c.arrayValue, let first = chain.first?.stringValue else {
            throw KeyError(.invalidCertificate, kid: kid, "\"x5c\" is not a non-empty array of strings")
        }
        guard let der = Base64.decode(first) else {
            throw KeyError(.invalidCertificate, kid: kid, "\"x5c\" entry is not base64")
        }
        return try OpenSSLPublicKey.fromCertificateDER(der)
    }

    private static func matches(_ type: KeyType, kty: String, crv: String?) -> Bool {
        switch type {
        case .rsa: kty == "RSA"
        case .ec(let curve): kty == "EC" && (crv == nil || crv == curve.rawValue)
        case .okp(let curve): kty == "OKP" && (crv == nil || crv == curve.rawValue)
        case .oct: kty == "oct"
        }
    }
}
