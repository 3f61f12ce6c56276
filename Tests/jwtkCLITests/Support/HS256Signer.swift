import COpenSSL

/// Mints HS256 tokens for tests that need claims no fixture has, with
/// OpenSSL's one-shot `HMAC()`.
enum HS256Signer {
    /// `header` and `claims` are JSON text, signed exactly as given.
    static func token(header: String, claims: String, key: [UInt8]) -> String {
        let signingInput = Base64URLText.encode(Array(header.utf8)) + "." + Base64URLText.encode(Array(claims.utf8))
        var mac = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = HMAC(EVP_sha256(), key, Int32(key.count), Array(signingInput.utf8), signingInput.utf8.count, &mac, &length)
        return signingInput + "." + Base64URLText.encode(mac[0..<Int(length)])
    }
}
