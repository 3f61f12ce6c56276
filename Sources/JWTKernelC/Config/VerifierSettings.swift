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
}
