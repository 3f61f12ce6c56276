internal import COpenSSL

/// AES ciphers fetched once, as `Digests` does for hashes: `EVP_aes_*()` makes OpenSSL 3 fetch the
/// implementation again on every init.
enum Ciphers {
    // Safety: fetched once (Swift runs static initialisers exactly once, thread-safely) and never freed or
    // mutated; OpenSSL allows sharing an EVP_CIPHER across threads. nil only if no provider offers the cipher
    // (then every decryption with it fails: never a trap inside a host process).
    nonisolated(unsafe) static let wrap128 = EVP_CIPHER_fetch(nil, "AES-128-WRAP", nil)
    nonisolated(unsafe) static let wrap192 = EVP_CIPHER_fetch(nil, "AES-192-WRAP", nil)
    nonisolated(unsafe) static let wrap256 = EVP_CIPHER_fetch(nil, "AES-256-WRAP", nil)
    nonisolated(unsafe) static let gcm128 = EVP_CIPHER_fetch(nil, "AES-128-GCM", nil)
    nonisolated(unsafe) static let gcm192 = EVP_CIPHER_fetch(nil, "AES-192-GCM", nil)
    nonisolated(unsafe) static let gcm256 = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil)
    nonisolated(unsafe) static let cbc128 = EVP_CIPHER_fetch(nil, "AES-128-CBC", nil)
    nonisolated(unsafe) static let cbc192 = EVP_CIPHER_fetch(nil, "AES-192-CBC", nil)
    nonisolated(unsafe) static let cbc256 = EVP_CIPHER_fetch(nil, "AES-256-CBC", nil)
    nonisolated(unsafe) static let sha1 = EVP_MD_fetch(nil, "SHA1", nil)

    static func wrap(keyLength: Int) -> OpaquePointer? {
        switch keyLength {
        case 16: wrap128
        case 24: wrap192
        case 32: wrap256
        default: nil
        }
    }

    static func gcm(keyLength: Int) -> OpaquePointer? {
        switch keyLength {
        case 16: gcm128
        case 24: gcm192
        case 32: gcm256
        default: nil
        }
    }

    static func cbc(keyLength: Int) -> OpaquePointer? {
        switch keyLength {
        case 16: cbc128
        case 24: cbc192
        case 32: cbc256
        default: nil
        }
    }

    /// One `EVP_CIPHER_CTX` for the length of `body`, freed (and so wiped of its key schedule) after.
    static func withContext<R>(_ body: (OpaquePointer) -> R?) -> R? {
        guard let ctx = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(ctx) }
        let result = body(ctx)
        ERR_clear_error()
        return result
    }
}
