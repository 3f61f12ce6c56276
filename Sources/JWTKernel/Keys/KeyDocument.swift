/// What a key file holds, told apart once, so every surface reads the same formats by the same rule:
/// the CLI's `--jwks` files and `jwtk jwks`, the C library's loaders (`jwtk_keystore_load_jwks*`) and so
/// nginx's `auth_jwt_key_file`.
///
/// JSON when the first character after a UTF-8 byte order mark and whitespace opens a JSON value;
/// otherwise PEM when a `-----BEGIN ` line is anywhere (text may precede it, RFC 7468 section 2);
/// otherwise JSON, whose parser then says what is wrong. Editors on Windows save both kinds with a byte
/// order mark. Key URLs are not read this way: a JWKS endpoint answers JSON.
public enum KeyDocument: Sendable, Equatable {
    /// A JWKS, a single JWK or a `{kid: PEM}` map.
    case json([UInt8])
    /// One PEM public key or certificate (a private key is refused when loaded, saying so).
    case pem(String)

    public init(_ bytes: some Collection<UInt8>) {
        var body = Array(bytes)[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        let first = body.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        if first != UInt8(ascii: "{"), first != UInt8(ascii: "["), PEMText.isPEM(body) {
            self = .pem(String(decoding: body, as: UTF8.self))
        } else {
            self = .json(Array(body))
        }
    }

    /// The document's keys: `JWKSet(json:)` for JSON, the one key for PEM.
    public func keySet(allowMixedKeyTypes: Bool = false, allowShortHMACSecrets: Bool = false) throws(KeyError) -> JWKSet
    {
        switch self {
        case .pem(let text): return JWKSet(keys: [try VerificationKey(pem: text)])
        case .json(let bytes):
            return try JWKSet(
                json: bytes, allowMixedKeyTypes: allowMixedKeyTypes, allowShortHMACSecrets: allowShortHMACSecrets)
        }
    }
}
