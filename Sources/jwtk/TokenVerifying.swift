import JWTKernel

/// What `jwtk verify` needs from a verifier: one issuer's `JWTVerifier` (`--jwks`)
/// or a `MultiIssuerVerifier` routing by issuer (`--provider` with fetched, mirrored or
/// file keys, `--jwks-url`, `--issuer-config`).
protocol TokenVerifying {
    var maxTokenSize: Int { get }
    func verify<R>(_ token: UnsafeRawBufferPointer, _ body: (VerifiedToken) -> R) throws(JWTError) -> R
}

extension JWTVerifier: TokenVerifying {}
extension MultiIssuerVerifier: TokenVerifying {}
