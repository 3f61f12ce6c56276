import JWTKernel

extension KeyRefresher {
    /// The usual server set-up in one call: registers each preset's key URL with this refresher
    /// (`add(preset:)`) and returns a verifier over the refresher's store that routes the presets'
    /// issuers and `issuers` (whose keys the caller registers, with `add(issuer:source:)` or by publishing).
    /// The refresher still has to be started: by `start()`, or by the server's lifecycle (the Hummingbird and
    /// Vapor integrations do it).
    public func verifier(
        presets: [ProviderPreset], issuers: [IssuerConfiguration] = [], cache: VerifiedTokenCache? = nil,
        configuration: HTTPKeySourceConfiguration = HTTPKeySourceConfiguration()
    ) throws(KeySourceError) -> MultiIssuerVerifier {
        for preset in presets { try add(preset: preset, configuration: configuration) }
        return MultiIssuerVerifier(store: store, issuers: presets.flatMap(\.issuers) + issuers, cache: cache)
    }
}
