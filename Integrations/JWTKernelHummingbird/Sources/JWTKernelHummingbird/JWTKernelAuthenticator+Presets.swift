public import Hummingbird
public import HummingbirdAuth
public import JWTKernel
public import JWTKernelRemote

extension JWTKernelAuthenticator {
    /// An authenticator for provider presets (Sign in with Apple, Google, ...): their key URLs are registered
    /// with `refresher`, which fetches and refreshes them once started (`refresher.start()`, or as a
    /// service of the application), and a verifier over its store routes their issuers.
    ///
    ///     let refresher = KeyRefresher(store: KeyStore())
    ///     let auth = try JWTKernelAuthenticator<AppContext>(
    ///         presets: [.apple(audiences: ["com.example.app"])], refresher: refresher) { token, _, _ in
    ///             User(appleID: token.subject ?? "")
    ///         }
    public init(
        presets: [ProviderPreset], refresher: KeyRefresher, realm: String = "api", tokenRequired: Bool = true,
        identity: @escaping @Sendable (VerifiedJWT, Request, Context) async throws -> Identity?
    ) throws(KeySourceError) {
        self.init(
            verifier: try refresher.verifier(presets: presets), realm: realm, tokenRequired: tokenRequired,
            identity: identity)
    }
}

extension JWTKernelAuthenticator where Context.Identity == VerifiedJWT {
    /// The same, with the verified token as the identity.
    public init(
        presets: [ProviderPreset], refresher: KeyRefresher, realm: String = "api", tokenRequired: Bool = true
    ) throws(KeySourceError) {
        self.init(verifier: try refresher.verifier(presets: presets), realm: realm, tokenRequired: tokenRequired)
    }
}
