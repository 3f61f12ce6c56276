import JWTKernel

/// A verifier's configuration once parsed: everything jwtk_verifier_new freezes.
struct VerifierSettings {
    var policy = ClaimsPolicy()
    var maxTokenSize = JWTVerifier.defaultMaxTokenSize
    var cache: VerifiedTokenCache.Configuration?
    var batchThreads = JWTVerifier.coreCount
    /// Pull mode: the remote key source for the verifier's issuers.
    var remote: RemoteKeys?
    /// "channel_secret" (LINE): published for its issuer and merged into its loaded or fetched keys.
    var localSecret: LocalSecret?
    /// "token_type": signed JWTs (the default), nested (a JWS inside a JWE) or encrypted-only (NGINX Plus's
    /// `auth_jwt_type`); the JWE types decrypt with the keystore's decryption keys.
    var tokenType = TokenType.signed
}

/// What a verifier's tokens are ("token_type"; NGINX Plus's `auth_jwt_type signed|nested|encrypted`).
enum TokenType: String {
    case signed, nested, encrypted
}
