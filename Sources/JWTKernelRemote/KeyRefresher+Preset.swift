import JWTKernel

extension KeyRefresher {
    /// Fetches `preset.keyURL` for the preset's key set (and publishes its local
    /// keys, such as LINE's channel secret, right away).
    public func add(
        preset: ProviderPreset, configuration: HTTPKeySourceConfiguration = HTTPKeySourceConfiguration()
    ) throws(KeySourceError) {
        add(
            issuer: preset.keyIssuer, source: try HTTPKeySource(url: preset.keyURL, configuration: configuration),
            localKeys: preset.localKeys)
    }
}
