public import JWTKernel
import JWTKernelRemote
public import Vapor

/// A provider whose preset the application can configure under its name (`app.jwtKernel.apple`), and
/// whose tokens a request then verifies (`req.jwtKernel.apple.verify()`), as with vapor/jwt.
public protocol JWTKernelProviderKind: Sendable {
    static var name: String { get }
}

public enum AppleProvider: JWTKernelProviderKind { public static let name = "apple" }
public enum GoogleProvider: JWTKernelProviderKind { public static let name = "google" }
public enum FirebaseProvider: JWTKernelProviderKind { public static let name = "firebase" }
public enum MicrosoftProvider: JWTKernelProviderKind { public static let name = "microsoft" }

extension Application.JWTKernel {
    public var apple: Provider<AppleProvider> { Provider(kernel: self) }
    public var google: Provider<GoogleProvider> { Provider(kernel: self) }
    public var firebase: Provider<FirebaseProvider> { Provider(kernel: self) }
    public var microsoft: Provider<MicrosoftProvider> { Provider(kernel: self) }

    /// One provider's configuration: its preset's key URL registered with the application's refresher, and
    /// a verifier of its issuers over the application's store.
    public struct Provider<Kind: JWTKernelProviderKind>: Sendable {
        let kernel: Application.JWTKernel

        /// Any preset under this provider's name: a mirror (`.apple(audiences:).mirrored(at:)`), offline keys.
        public func configure(preset: ProviderPreset, cache: VerifiedTokenCache? = nil) throws(KeySourceError) {
            kernel.setProvider(Kind.name, try kernel.refresher.verifier(presets: [preset], cache: cache))
        }

        /// This provider's verifier, nil until configured.
        public var verifier: MultiIssuerVerifier? { kernel.provider(Kind.name) }
    }
}

extension Application.JWTKernel.Provider where Kind == AppleProvider {
    /// Sign in with Apple: `audiences` are the app's bundle ID or the Services ID; `nonce` the SHA-256 hex of
    /// the raw nonce the app sent, when the route knows it.
    public func configure(audiences: [String], nonce: String? = nil) throws(KeySourceError) {
        try configure(preset: .apple(audiences: audiences, nonce: nonce))
    }

    @available(*, deprecated, renamed: "configure(audiences:nonce:)")
    public func configure(audience: [String], nonce: String? = nil) throws(KeySourceError) {
        try configure(audiences: audience, nonce: nonce)
    }
}

extension Application.JWTKernel.Provider where Kind == GoogleProvider {
    /// Google Sign-In: `audiences` are the OAuth client IDs tokens may be issued to.
    public func configure(audiences: [String], nonce: String? = nil) throws(KeySourceError) {
        try configure(preset: .google(audiences: audiences, nonce: nonce))
    }

    @available(*, deprecated, renamed: "configure(audiences:nonce:)")
    public func configure(clientIDs: [String], nonce: String? = nil) throws(KeySourceError) {
        try configure(audiences: clientIDs, nonce: nonce)
    }
}

extension Application.JWTKernel.Provider where Kind == FirebaseProvider {
    /// Firebase Authentication ID tokens of project `projectID`.
    public func configure(projectID: String) throws(KeySourceError) {
        try configure(preset: .firebase(projectID: projectID))
    }
}

extension Application.JWTKernel.Provider where Kind == MicrosoftProvider {
    /// Microsoft identity platform tokens of one tenant for `audiences` (its client IDs).
    public func configure(tenantID: String, audiences: [String]) throws(KeySourceError) {
        try configure(preset: .microsoft(tenantID: tenantID, audiences: audiences))
    }

    @available(*, deprecated, renamed: "configure(tenantID:audiences:)")
    public func configure(tenantID: String, clientIDs: [String]) throws(KeySourceError) {
        try configure(tenantID: tenantID, audiences: clientIDs)
    }
}
