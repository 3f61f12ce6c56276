/// A JWE protected header (RFC 7516 §4), read by the strict JSON parser (`JSONValue.parse`: RFC 8259, no
/// duplicate names). Refused before any key is touched: `zip` (decompression bombs), `crit` (no extension is
/// implemented), `RSA1_5` and `PBES2-*`, and an `alg` or `enc` the kernel does not decrypt. `jku`, `jwk`,
/// `x5u`, `x5c` are never read: keys come only from the configured decryption key set.
struct JWEHeader {
    let alg: KeyManagementAlgorithm
    let enc: ContentEncryption
    let kid: String?
    let cty: String?
    let members: JSONValue

    init(_ bytes: [UInt8]) throws(JWTError) {
        let value = try JSONValue.parse(bytes)
        guard value.objectValue != nil else { throw JWTError(.malformed, "header is not a JSON object") }
        if value["zip"] != nil {
            throw JWTError(.unsupportedAlg, "zip is refused: compressed JWE plaintexts are decompression bombs")
        }
        if value["crit"] != nil { throw JWTError(.critUnsupported, "crit names an extension the kernel lacks") }
        guard let algName = value["alg"]?.stringValue else { throw JWTError(.malformed, "header has no string alg") }
        guard let encName = value["enc"]?.stringValue else { throw JWTError(.malformed, "header has no string enc") }
        if let why = KeyManagementAlgorithm.refusal(of: algName) { throw JWTError(.unsupportedAlg, why) }
        guard let alg = KeyManagementAlgorithm(rawValue: algName) else {
            throw JWTError(.unsupportedAlg, "alg is not a JWE algorithm the kernel decrypts with")
        }
        guard let enc = ContentEncryption(rawValue: encName) else {
            throw JWTError(.unsupportedAlg, "enc is not a content encryption the kernel decrypts")
        }
        self.alg = alg
        self.enc = enc
        switch value["kid"] {
        case nil: kid = nil
        case .string(let s)?: kid = s
        default: throw JWTError(.malformed, "kid is not a string")
        }
        switch value["cty"] {
        case nil: cty = nil
        case .string(let s)?: cty = s
        default: throw JWTError(.malformed, "cty is not a string")
        }
        members = value
    }

    /// RFC 7519 §5.2 / RFC 7515 §4.1.10: `cty` "JWT" (any case, `application/` may be written) marks a nested JWT.
    var saysNestedJWT: Bool {
        guard let cty else { return false }
        let lower = cty.lowercased()
        return lower == "jwt" || lower == "application/jwt"
    }

    /// A header member that is a base64url string, decoded; nil when absent. Malformed when not canonical.
    func bytes(_ name: String) throws(JWTError) -> [UInt8]? {
        guard let member = members[name] else { return nil }
        guard let text = member.stringValue, let decoded = Base64URL.decode(text) else {
            throw JWTError(.malformed, "a base64url header parameter is not canonical base64url")
        }
        return decoded
    }
}
