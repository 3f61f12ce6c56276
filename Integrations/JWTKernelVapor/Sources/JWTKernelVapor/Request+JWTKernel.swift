public import JWTKernel
public import Vapor

extension Request {
    /// Verifies this request's bearer token: `try req.jwtKernel.verify()` with the application's verifier,
    /// `try req.jwtKernel.apple.verify()` with a provider's. Synchronous: the keys are already parsed, and
    /// no verification waits for a fetch or hops to an actor; refusals are `BearerRefusal`s with the challenge.
    public var jwtKernel: JWTKernel { JWTKernel(request: self) }

    public struct JWTKernel: Sendable {
        public let request: Request

        /// The `Authorization: Bearer` token verified by `app.jwtKernel.verifier`.
        public func verify() throws -> VerifiedJWT {
            try verify(with: try configured(\.verifier, "app.jwtKernel.verifier"))
        }

        /// `token` verified by `app.jwtKernel.verifier`.
        public func verify(_ token: String) throws -> VerifiedJWT {
            try verify(token, with: try configured(\.verifier, "app.jwtKernel.verifier"))
        }

        /// The bearer token verified by `verifier`.
        public func verify(with verifier: MultiIssuerVerifier) throws -> VerifiedJWT {
            guard let header = request.headers.first(name: .authorization),
                let token = AuthorizationHeader.bearerToken(in: header)
            else { throw BearerRefusal.missing(realm: realm) }
            return try verify(String(token), with: verifier)
        }

        /// `token` verified by `verifier` (a token from the body, such as Apple's `identityToken`, or a header of
        /// your own); a refusal is thrown as a `BearerRefusal`, which `ErrorMiddleware` logs at `debug` with the
        /// code's name.
        public func verify(_ token: String, with verifier: MultiIssuerVerifier) throws -> VerifiedJWT {
            do {
                return try verifier.verify(token)
            } catch {
                throw BearerRefusal.refusing(error, realm: realm)
            }
        }

        public var apple: Provider<AppleProvider> { Provider(kernel: self) }
        public var google: Provider<GoogleProvider> { Provider(kernel: self) }
        public var firebase: Provider<FirebaseProvider> { Provider(kernel: self) }
        public var microsoft: Provider<MicrosoftProvider> { Provider(kernel: self) }

        /// A provider's tokens, verified by the verifier `app.jwtKernel.<provider>.configure(...)` made.
        public struct Provider<Kind: JWTKernelProviderKind>: Sendable {
            let kernel: Request.JWTKernel

            public func verify() throws -> VerifiedJWT {
                try kernel.verify(with: try kernel.providerVerifier(Kind.name))
            }

            public func verify(_ token: String) throws -> VerifiedJWT {
                try kernel.verify(token, with: try kernel.providerVerifier(Kind.name))
            }
        }

        var realm: String { request.application.jwtKernelStorage?.read(\.realm) ?? "api" }

        func providerVerifier(_ name: String) throws -> MultiIssuerVerifier {
            try configured(\.providers[name], "app.jwtKernel.\(name).configure(...)")
        }

        /// A verifier the application should have configured: its absence is the server's fault (500,
        /// logged as an error), never the client's.
        func configured(
            _ path: KeyPath<JWTKernelStorage.State, MultiIssuerVerifier?>, _ what: String
        ) throws -> MultiIssuerVerifier {
            if let verifier = request.application.jwtKernelStorage?.read({ $0[keyPath: path] }) { return verifier }
            request.logger.error("jwt-kernel: not configured", metadata: ["jwtk.missing": "\(what)"])
            throw Abort(.internalServerError, reason: "jwt-kernel is not configured")
        }
    }
}

extension Application {
    /// The storage if `app.jwtKernel` was configured; never made on a request's path (the application's
    /// storage is written only while it is configured).
    var jwtKernelStorage: JWTKernelStorage? { storage[JWTKernelStorage.Key.self] }
}
