import JWTKernel

/// What `jwtk verify` needs from a verifier: one issuer's `JWTVerifier` (`--jwks`)
/// or a `MultiIssuerVerifier` over fetched keys (`--provider`, `--jwks-url`, `--issuer-config`).
protocol TokenVerifying {
    var maxTokenSize: Int { get }
    func verify<R>(_ token: UnsafeRawBufferPointer, _ body: (VerifiedToken) -> R) throws(JWTError) -> R
}

extension JWTVerifier: TokenVerifying {}
extension MultiIssuerVerifier: TokenVerifying {}
