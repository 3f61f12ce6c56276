/// An encrypted-only JWT (NGINX Plus's `auth_jwt_type encrypted`) whose claims passed the verifier's claims
/// policy: the JWE's authentication tag is its only integrity check, so its claims are as trustworthy as the
/// decryption key's holders, no more. An owning value.
public struct DecryptedJWT: Sendable {
    public let keyManagement: KeyManagementAlgorithm
    public let contentEncryption: ContentEncryption
    /// The key that decrypted it.
    public let key: DecryptionKey
    /// The decoded JWE protected header JSON.
    public let header: [UInt8]
    /// The claims JSON exactly as decrypted.
    public let claimsJSON: [UInt8]
    public let issuer: String?
    public let subject: String?
    public let expiresAt: Double?
    /// All claims as a JSON tree (they were validated strictly before).
    public let claims: JSONValue

    public subscript(claim name: String) -> JSONValue? { claims[name] }
}
