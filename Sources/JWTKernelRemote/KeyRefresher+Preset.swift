import JWTKernel

extension KeyRefresher {
    /// Fetches `preset.keyURL` for the preset's key set (and publishes its local
    /// keys, such as LINE's channel secret, right away). A preset without its audience is refused
    /// (`bad_configuration`, `ProviderPreset.audienceProblem`): it would admit every application's tokens.
    /// `policy`: this source's fetch schedule (nil: the refresher's).
    public func add(
        preset: ProviderPreset, configuration: HTTPKeySourceConfiguration = HTTPKeySourceConfiguration(),
        policy: RefreshPolicy? = nil
    ) throws(KeySourceError) {
        if let problem = preset.audienceProblem { throw KeySourceError(.badConfiguration, problem) }
        add(
            issuer: preset.keyIssuer, source: try HTTPKeySource(url: preset.keyURL, configuration: configuration),
            localKeys: preset.localKeys, policy: policy)
    }
}
