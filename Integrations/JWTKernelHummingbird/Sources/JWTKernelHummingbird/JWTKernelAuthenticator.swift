public import Hummingbird
public import HummingbirdAuth
public import JWTKernel
public import JWTKernelServer

/// hummingbird-auth's `AuthenticatorMiddleware` over a jwt-kernel `MultiIssuerVerifier`: reads the
/// `Authorization: Bearer` token, verifies it (synchronously: microseconds, no actor hop, no I/O; an
/// unknown `kid` wakes the key refresher's own thread and never waits for it), and sets
/// `context.identity` to the verified token or to what `identity` makes of it.
///
///     typealias AppContext = BasicAuthRequestContext<VerifiedJWT>
///     let api = router.group("api").add(middleware: JWTKernelAuthenticator<AppContext>(verifier: verifier))
///     api.get("me") { _, context in try context.requireIdentity().subject ?? "" }
///
/// Refusals are `BearerError`s (401/403/503 with the RFC 6750 challenge). The reason is logged at `debug`
/// on the request's logger with `jwtk.error` metadata (the code's name). With `verificationCounters`, each
/// result is counted too (one atomic add), and a `KeyRefresherService` given the same counters reports them
/// as `jwtk_verifications_total{issuer,result}`; run that service with the application, which starts and
/// stops the refresher: `app.addServices(KeyRefresherService(refresher: refresher, logger: logger))`.
public struct JWTKernelAuthenticator<Context: AuthRequestContext>: AuthenticatorMiddleware {
    public typealias Identity = Context.Identity

    public let verifier: MultiIssuerVerifier
    /// The challenge's realm.
    public let realm: String
    /// True (the default): a request without a token is refused with 401 and the bare challenge, and so is
    /// one whose identity closure returns nil. False: such a request goes on without an identity, for routes
    /// that serve anonymous users too (`IsAuthenticatedMiddleware` or `requireIdentity()` decide later). A
    /// token that is present and bad is refused either way.
    public let tokenRequired: Bool
    /// Where results are counted, if anywhere.
    public let verificationCounters: VerificationCounters?
    private let identify: @Sendable (VerifiedJWT, Request, Context) async throws -> Identity?

    /// `identity`: the application's own identity from the verified token (a database lookup, a `Decodable`
    /// of the claims); nil for no identity; throw `BearerError.insufficientScope` for a 403.
    public init(
        verifier: MultiIssuerVerifier, realm: String = "api", tokenRequired: Bool = true,
        verificationCounters: VerificationCounters? = nil,
        identity: @escaping @Sendable (VerifiedJWT, Request, Context) async throws -> Identity?
    ) {
        self.verifier = verifier
        self.realm = realm
        self.tokenRequired = tokenRequired
        self.verificationCounters = verificationCounters
        self.identify = identity
    }

    public func authenticate(request: Request, context: Context) async throws -> Identity? {
        guard let header = request.headers[.authorization], let token = AuthorizationHeader.bearerToken(in: header)
        else {
            if tokenRequired { throw BearerError.missingToken(realm: realm) }
            return nil
        }
        let verified = try verifier.verifyBearer(token, realm: realm, counters: verificationCounters, context: context)
        guard let identity = try await identify(verified, request, context) else {
            if tokenRequired { throw BearerError.unknownIdentity(realm: realm) }
            return nil
        }
        return identity
    }
}

extension JWTKernelAuthenticator where Context.Identity == VerifiedJWT {
    /// The verified token itself as the identity.
    public init(
        verifier: MultiIssuerVerifier, realm: String = "api", tokenRequired: Bool = true,
        verificationCounters: VerificationCounters? = nil
    ) {
        self.init(
            verifier: verifier, realm: realm, tokenRequired: tokenRequired, verificationCounters: verificationCounters
        ) { token, _, _ in token }
    }
}
