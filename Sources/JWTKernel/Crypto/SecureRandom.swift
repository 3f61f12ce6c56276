internal import COpenSSL

/// Random bytes from OpenSSL's CSPRNG, for secrets the process derives itself
/// (the verified-token cache's hash secret).
enum SecureRandom {
    /// nil only if OpenSSL's generator cannot be seeded, which callers treat as fatal at init, never per token.
    static func bytes(_ count: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: count)
        return RAND_bytes(&out, Int32(count)) == 1 ? out : nil
    }
}
