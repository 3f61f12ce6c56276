public import JWTKernel

extension KeyRefresher {
    /// Registers the key source of every entry of `file` with this refresher (a preset's key URL or its
    /// mirror, an issuer's key URL, an issuer's discovery document) and returns the routes a
    /// `MultiIssuerVerifier` over `store` needs. `base` holds checks added to every entry
    /// (`ClaimsPolicy.adding(_:)`); its issuers and audiences are ignored, the file names them.
    /// Nothing is fetched until the refresher runs (`start()`, `refreshDue()`, or a server's lifecycle).
    public func register(
        _ file: IssuerConfigurationFile, base: ClaimsPolicy = ClaimsPolicy(),
        configuration: HTTPKeySourceConfiguration = HTTPKeySourceConfiguration()
    ) throws(IssuerConfigurationError) -> [IssuerConfiguration] {
        var routes: [IssuerConfiguration] = []
        for entry in file.entries {
            if let name = entry.provider {
                var preset = try ProviderPreset.named(name, audiences: entry.audiences, tenant: entry.tenant)
                if let mirror = entry.jwksURL { preset = preset.mirrored(at: mirror) }
                do { try add(preset: preset, configuration: configuration) } catch {
                    throw IssuerConfigurationError("provider \(name): \(preset.keyURL): \(error)")
                }
                routes += preset.issuers.map { route in
                    var route = route
                    route.policy = route.policy.adding(base)
                    return route
                }
            } else if let issuer = entry.issuer {
                var policy = base
                policy.issuers = [issuer]
                policy.audiences = entry.audiences
                if let algorithms = entry.algorithms { policy.algorithms = algorithms }
                if entry.discovery {
                    do { add(discovery: try OpenIDDiscovery(issuer: issuer, configuration: configuration)) } catch {
                        throw IssuerConfigurationError("discovery \(issuer): \(error)")
                    }
                } else if let url = entry.jwksURL {
                    do { add(issuer: issuer, source: try HTTPKeySource(url: url, configuration: configuration)) } catch
                    {
                        throw IssuerConfigurationError("\(url): \(error)")
                    }
                }
                routes.append(IssuerConfiguration(issuer: issuer, policy: policy))
            }
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
