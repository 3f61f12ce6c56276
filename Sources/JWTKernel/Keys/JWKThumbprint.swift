/// RFC 7638 JWK thumbprints: SHA-256 over the key's required members, in
/// lexicographic order, without whitespace. A stable name for a public key,
/// whatever `kid` its publisher gave it.
public enum JWKThumbprint {
    /// The base64url SHA-256 thumbprint of a public JWK (RSA, EC, OKP); nil when a
    /// required member is missing or the key is a secret (`oct`: a hash of a
    /// secret is not something to print).
    public static func sha256(_ jwk: JSONValue) -> String? {
        let required: [String]
        switch jwk["kty"]?.stringValue {
        case "RSA": required = ["e", "kty", "n"]
        case "EC": required = ["crv", "kty", "x", "y"]
        case "OKP": required = ["crv", "kty", "x"]
        default: return nil
        }
        var members: [(name: String, value: String)] = []
        for name in required {
            guard let value = jwk[name]?.stringValue else { return nil }
            members.append((name, value))
        }
        return digest(members)
    }

    /// The thumbprint of a loaded public key, from its own key material (for keys
    /// given as PEM or certificates, which have no JWK to hash); nil for secrets.
    public static func sha256(_ key: VerificationKey) -> String? {
        key.material.publicKey?.thumbprintMembers(key.type).map(digest)
    }

    /// SHA-256 of `{"name":"value",...}` over members already in lexicographic order.
    private static func digest(_ members: [(name: String, value: String)]) -> String {
        var text = "{"
        for (i, member) in members.enumerated() {
            if i > 0 { text += "," }
            JSONValue.writeString(member.name, to: &text)
            text += ":"
            JSONValue.writeString(member.value, to: &text)
        }
        text += "}"
        var digest = [UInt8](repeating: 0, count: 64)
        let n = Array(text.utf8).withUnsafeBytes { input in
            digest.withUnsafeMutableBufferPointer { SHA2State.digest(hashLength: 32, input, into: $0.baseAddress!) }
        }
        return Base64URL.encode(digest.prefix(n))
    }
}
