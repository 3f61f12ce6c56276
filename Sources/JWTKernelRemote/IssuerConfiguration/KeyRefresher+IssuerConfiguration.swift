public import JWTKernel

extension KeyRefresher {
    /// Registers the key source of every entry of `file` with this refresher (a preset's key URL or its
    /// mirror, an issuer's key URL, an issuer's discovery document), each with its own fetch schedule, and
    /// returns the routes a `MultiIssuerVerifier` over `store` needs. `base` holds checks added to every
    /// entry (`ClaimsPolicy.adding(_:)`; an entry's own members win); its issuers and audiences are ignored,
    /// the file names them. Nothing is fetched until the refresher runs (`start()`, `refreshDue()`, or a
    /// server's lifecycle).
    public func register(
        _ file: IssuerConfigurationFile, base: ClaimsPolicy = ClaimsPolicy(),
        configuration: HTTPKeySourceConfiguration = HTTPKeySourceConfiguration()
    ) throws(IssuerConfigurationError) -> [IssuerConfiguration] {
        var routes: [IssuerConfiguration] = []
        for entry in file.entries {
            let schedule = entry.keys.hasSchedule ? try entry.keys.refreshPolicy() : nil
            if var preset = try entry.preset() {
                if let mirror = entry.keys.jwksURL { preset = preset.mirrored(at: mirror) }
                do { try add(preset: preset, configuration: configuration, policy: schedule) } catch {
                    throw IssuerConfigurationError("provider \(entry.provider ?? ""): \(preset.keyURL): \(error)")
                }
            } else if entry.keys.discovery == true {
                let issuer = entry.issuers[0]
                do {
                    add(discovery: try OpenIDDiscovery(issuer: issuer, configuration: configuration), policy: schedule)
                } catch {
                    throw IssuerConfigurationError("discovery \(issuer): \(error)")
                }
            } else if let url = entry.keys.jwksURL {
                do {
                    add(
                        issuer: entry.issuers[0], source: try HTTPKeySource(url: url, configuration: configuration),
                        policy: schedule)
                } catch {
                    throw IssuerConfigurationError("\(url): \(error)")
                }
            }
            routes += try entry.routes(base: base)
        }
        return routes
    }
}

extension ClaimsPolicy {
    /// A preset's policy with what a caller adds to every issuer: `extra`'s leeway, nonce, `typ`, required
    /// claims and claim requirements; `extra`'s algorithms narrow the preset's (never widen them).
    public func adding(_ extra: ClaimsPolicy) -> ClaimsPolicy {
        var policy = self
        policy.leeway = extra.leeway
        if let nonce = extra.expectedNonce { policy.expectedNonce = nonce }
        if let typ = extra.expectedType { policy.expectedType = typ }
        policy.requiredClaims += extra.requiredClaims.filter { !policy.requiredClaims.contains($0) }
        policy.claimRequirements += extra.claimRequirements
        if extra.algorithms != .all {
            policy.algorithms = AlgorithmSet(policy.algorithms.algorithms.filter { extra.algorithms.contains($0) })
        }
        return policy
    }
}
