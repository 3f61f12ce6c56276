/// A decrypted JWE: its protected header and its plaintext (a JWS for a nested token, the claims for an
/// encrypted-only one). An owning value; the plaintext was authenticated by the content encryption's tag.
public struct DecryptedJWE: Sendable {
    public let keyManagement: KeyManagementAlgorithm
    public let contentEncryption: ContentEncryption
    /// The decoded protected header JSON.
    public let header: [UInt8]
    public var plaintext: [UInt8] { plaintextStorage }
    /// Mutable only so that the nested path can wipe it once the inner token is verified.
    var plaintextStorage: [UInt8]
    /// The header's `cty`, if any.
    public let contentType: String?
    /// The key that decrypted it.
    public let key: DecryptionKey

    /// True when `cty` says the plaintext is a JWT (RFC 7519 §5.2).
    public let isNestedJWT: Bool
}
