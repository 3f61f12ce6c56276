public import JWTKernel
public import Vapor

/// The verified token is a Vapor identity: `req.auth.require(VerifiedJWT.self)` after the authenticator.
extension VerifiedJWT: @retroactive Authenticatable {}

/// Vapor's `AsyncRequestAuthenticator` over a jwt-kernel verifier: reads the bearer token, verifies it and
/// logs in the verified token, or what `identity` makes of it.
///
///     let api = app.grouped(app.jwtKernel.authenticator())                   // VerifiedJWT
///     let ios = app.grouped(app.jwtKernel.apple.authenticator { token, req in
///         try await User.find(appleID: token.subject, on: req.db)            // your own type
///     })
///
/// A bad token is refused with `BearerRefusal.refusing(_:realm:)` (401/403/503 with the challenge). With
/// `tokenRequired` (the default) a request without a token, or whose `identity` is nil, is refused with 401
/// too; without it, such a request goes on unauthenticated (a `GuardMiddleware` or `req.auth.require`
/// decides later).
public struct JWTKernelAuthenticator<User: Authenticatable>: AsyncRequestAuthenticator {
    let verifier: @Sendable (Request) throws -> MultiIssuerVerifier
    let tokenRequired: Bool
    let identify: @Sendable (VerifiedJWT, Request) async throws -> User?

    /// An authenticator over `verifier`.
    public init(
        verifier: MultiIssuerVerifier, tokenRequired: Bool = true,
        identity: @escaping @Sendable (VerifiedJWT, Request) async throws -> User?
    ) {
        self.init(resolve: { _ in verifier }, tokenRequired: tokenRequired, identity: identity)
    }

    init(
        resolve: @escaping @Sendable (Request) throws -> MultiIssuerVerifier, tokenRequired: Bool,
        identity: @escaping @Sendable (VerifiedJWT, Request) async throws -> User?
    ) {
        self.verifier = resolve
        self.tokenRequired = tokenRequired
        self.identify = identity
    }

    public func authenticate(request: Request) async throws {
        let kernel = request.jwtKernel
        guard let header = request.headers.first(name: .authorization),
            let token = AuthorizationHeader.bearerToken(in: header)
        else {
            if tokenRequired { throw BearerRefusal.missing(realm: kernel.realm) }
            return
        }
        let verified = try kernel.verify(String(token), with: try verifier(request))
        guard let user = try await identify(verified, request) else {
            if tokenRequired { throw BearerRefusal.unknownIdentity(realm: kernel.realm) }
            return
        }
        request.auth.login(user)
    }
}

extension JWTKernelAuthenticator where User == VerifiedJWT {
    /// An authenticator over `verifier` that logs in the verified token.
    public init(verifier: MultiIssuerVerifier, tokenRequired: Bool = true) {
        self.init(verifier: verifier, tokenRequired: tokenRequired) { token, _ in token }
    }
}

extension Application.JWTKernel {
    /// An authenticator with the application's verifier (`app.jwtKernel.verifier`, read per request).
    public func authenticator(tokenRequired: Bool = true) -> JWTKernelAuthenticator<VerifiedJWT> {
        authenticator(tokenRequired: tokenRequired) { token, _ in token }
    }

    /// The same, logging in the application's own type.
    public func authenticator<User: Authenticatable>(
        tokenRequired: Bool = true, identity: @escaping @Sendable (VerifiedJWT, Request) async throws -> User?
    ) -> JWTKernelAuthenticator<User> {
        JWTKernelAuthenticator(
            resolve: { try $0.jwtKernel.configured(\.verifier, "app.jwtKernel.verifier") },
            tokenRequired: tokenRequired, identity: identity)
    }
}

extension Application.JWTKernel.Provider {
    /// An authenticator with this provider's verifier, logging in the verified token.
    public func authenticator(tokenRequired: Bool = true) -> JWTKernelAuthenticator<VerifiedJWT> {
        authenticator(tokenRequired: tokenRequired) { token, _ in token }
    }

    /// The same, logging in the application's own type.
    public func authenticator<User: Authenticatable>(
        tokenRequired: Bool = true, identity: @escaping @Sendable (VerifiedJWT, Request) async throws -> User?
    ) -> JWTKernelAuthenticator<User> {
        JWTKernelAuthenticator(
            resolve: { try $0.jwtKernel.providerVerifier(Kind.name) }, tokenRequired: tokenRequired,
            identity: identity)
    }
}
