/// A JWK's members as key import reads them, for verification keys (`VerificationKey(jwk:)`) and decryption
/// keys (`DecryptionKey(jwk:)`) alike: strings are strings, binary members canonical base64url, and every
/// error names the member and the key's `kid`.
struct JWKMembers {
    let jwk: JSONValue
    let kid: String?

    init(_ jwk: JSONValue) throws(KeyError) {
        guard case .object = jwk else { throw KeyError(.malformed, "JWK is not a JSON object") }
        switch jwk["kid"] {
        case nil: kid = nil
        case .string(let s)?: kid = s
        default: throw KeyError(.malformed, "\"kid\" is not a string")
        }
        self.jwk = jwk
    }

    /// A string member, nil when absent.
    func string(_ name: String) throws(KeyError) -> String? {
        switch jwk[name] {
        case nil: return nil
        case .string(let s)?: return s
        default: throw KeyError(.malformed, kid: kid, "\"\(name)\" is not a string")
        }
    }

    /// A base64url member's bytes, nil when absent.
    func bytes(_ name: String) throws(KeyError) -> [UInt8]? {
        guard let text = try string(name) else { return nil }
        guard let decoded = Base64URL.decode(text) else {
            throw KeyError(.malformed, kid: kid, "\"\(name)\" is not canonical base64url")
        }
        return decoded
    }

    /// A base64url member that must be there.
    func required(_ name: String) throws(KeyError) -> [UInt8] {
        guard let value = try bytes(name) else { throw KeyError(.malformed, kid: kid, "missing \"\(name)\"") }
        return value
    }
}
