import Foundation
import JWTKernel
import JWTKernelRemote

extension VerdictCorpus.Configuration {
    /// This configuration as a server application sets it up, for the Hummingbird and Vapor runners: as an
    /// issuer configuration file (the one issuer-set schema, `IssuerConfigurationFile`) whose `jwks_url` is this
    /// configuration's key file served by `server` (a real loopback HTTP key server), registered with the
    /// application's `refresher` (`KeyRefresher.register`, what `jwtk verify --issuer-config` and the
    /// forward-auth agent call); or, for HMAC secrets (never served over HTTP; an issuer file refuses an entry
    /// without a key source), the same entry read by `IssuerEntry` with the key file published into the
    /// refresher's store, as an application loading a secret from disk does. Returns the routes of a
    /// `MultiIssuerVerifier` over the refresher's store: what the framework's authenticator is given.
    public func routes(
        registeringWith refresher: KeyRefresher, server: LoopbackServer
    ) throws
        -> [IssuerConfiguration]
    {
        let keySet = try Data(contentsOf: keyFile)
        if secret {
            let entry = try IssuerEntry(parsing: try JSONValue.parse(config))
            let routes = try entry.routes()
            let keys = try JWKSet(json: Array(keySet))
            for keyIssuer in Set(routes.map(\.keyIssuer)) { refresher.store.publish(keys, forIssuer: keyIssuer) }
            return routes
        }
        let path = "/" + keys
        server.serve(path, json: String(decoding: keySet, as: UTF8.self))
        return try refresher.register(try IssuerConfigurationFile(parsing: try issuerFile(jwksURL: server.url(path))))
    }

    /// This configuration's provider preset (`IssuerEntry.preset()`, the one provider table) with its keys
    /// mirrored at `server` (the same key file `routes(registeringWith:server:)` serves): what an application
    /// gives a framework's preset API (Hummingbird's `JWTKernelAuthenticator(presets:refresher:)`, Vapor's
    /// `app.jwtKernel.apple.configure(preset:)`). Nil without a provider. Exactly the routes' policy: the corpus's
    /// provider entries add no checks to their preset.
    public func preset(keysAt server: LoopbackServer) throws -> ProviderPreset? {
        let entry = try IssuerEntry(parsing: try JSONValue.parse(config))
        return try entry.preset()?.mirrored(at: server.url("/" + keys))
    }
}
