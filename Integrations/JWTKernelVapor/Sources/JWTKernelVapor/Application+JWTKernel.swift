public import JWTKernel
public import JWTKernelRemote
public import Vapor

extension Application {
    /// jwt-kernel for this application: `app.jwtKernel.configure(...)`, `app.jwtKernel.apple.configure(...)`,
    /// then `req.jwtKernel.verify()` or an authenticator in the routes.
    public var jwtKernel: JWTKernel { JWTKernel(application: self) }

    public struct JWTKernel: Sendable {
        public let application: Application

        /// Made on first use, while the application is configured, with the lifecycle handler that starts
        /// and stops the refresher.
        var storage: JWTKernelStorage {
            if let existing = application.storage[JWTKernelStorage.Key.self] { return existing }
            let store = KeyStore()
            return install(JWTKernelStorage(store: store, refresher: KeyRefresher(store: store)))
        }

        private func install(_ storage: JWTKernelStorage) -> JWTKernelStorage {
            if application.storage[JWTKernelStorage.Key.self] == nil { application.lifecycle.use(RefresherLifecycle()) }
            application.storage[JWTKernelStorage.Key.self] = storage
            return storage
        }

        /// Replaces the application's store and refresher with `refresher` and its store, before anything is
        /// configured: for your own `RefreshPolicy`, or a store other code shares. Its thread is started and
        /// stopped with the application like the default one's.
        public func use(refresher: KeyRefresher) {
            _ = install(JWTKernelStorage(store: refresher.store, refresher: refresher))
        }

        /// The application's key store: every issuer's keys, kept fresh by `refresher`.
        public var store: KeyStore { storage.store }

        /// Fetches and refreshes the key URLs registered with it (presets, `add(issuer:source:)`) on its
        /// own thread, started when the application boots and stopped when it shuts down.
        public var refresher: KeyRefresher { storage.refresher }

        /// The realm of the `WWW-Authenticate` challenges (default `api`).
        public var realm: String {
            get { storage.read(\.realm) }
            nonmutating set { storage.write { $0.realm = newValue } }
        }

        /// The verifier `req.jwtKernel.verify()` and `app.jwtKernel.authenticator()` use.
        public var verifier: MultiIssuerVerifier? {
            get { storage.read(\.verifier) }
            nonmutating set { storage.write { $0.verifier = newValue } }
        }

        /// Sets `verifier` to one over the application's store for `presets` (their key URLs registered with
        /// the refresher) and `issuers` (whose keys you register: `refresher.add(issuer:source:)`).
        public func configure(
            presets: [ProviderPreset] = [], issuers: [IssuerConfiguration] = [], cache: VerifiedTokenCache? = nil
        ) throws(KeySourceError) {
            verifier = try refresher.verifier(presets: presets, issuers: issuers, cache: cache)
        }

        /// A named provider's verifier (`apple`, `google`, ...), nil until configured.
        func provider(_ name: String) -> MultiIssuerVerifier? { storage.read { $0.providers[name] } }

        func setProvider(_ name: String, _ verifier: MultiIssuerVerifier) {
            storage.write { $0.providers[name] = verifier }
        }
    }
}
