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
        var text = "{"
        for (i, name) in required.enumerated() {
            guard let value = jwk[name]?.stringValue else { return nil }
            if i > 0 { text += "," }
            JSONValue.writeString(name, to: &text)
            text += ":"
            JSONValue.writeString(value, to: &text)
        }
        text += "}"
        var digest = [UInt8](repeating: 0, count: 64)
        let n = Array(text.utf8).withUnsafeBytes { input in
            digest.withUnsafeMutableBufferPointer { SHA2State.digest(hashLength: 32, input, into: $0.baseAddress!) }
        }
        return Base64URL.encode(digest.prefix(n))
    }
}
