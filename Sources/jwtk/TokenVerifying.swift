@_spi(Internals) import JWTKernel

/// What `jwtk verify` needs from a verifier: one issuer's `JWTVerifier` (`--jwks`)
/// or a `MultiIssuerVerifier` routing by issuer (`--provider` with fetched, mirrored or
/// file keys, `--jwks-url`, `--issuer-config`).
protocol TokenVerifying {
    var maxTokenSize: Int { get }
    func verify<R>(_ token: UnsafeRawBufferPointer, _ body: (VerifiedToken) -> R) throws(JWTError) -> R
    /// `--token-type nested`: decrypt, then the inner JWS through the same verification.
    func verifyNestedLending(
        _ token: UnsafeRawBufferPointer, decryptor: JWEDecryptor, at now: Int64?, cacheOutcome: inout CacheOutcome,
        _ body: (VerifiedToken) -> Void
    ) throws(JWTError)
    /// `--token-type encrypted`: decrypt, then the claims policy.
    func verifyEncryptedLending(
        _ token: UnsafeRawBufferPointer, decryptor: JWEDecryptor, at now: Int64?, _ body: (DecryptedToken) -> Void
    ) throws(JWTError)
}

/// What `jwtk verify --token-type` says the tokens are (NGINX Plus's `auth_jwt_type`).
enum TokenType: String, CaseIterable {
    case signed, nested, encrypted
}

extension JWTVerifier: TokenVerifying {}
extension MultiIssuerVerifier: TokenVerifying {}
