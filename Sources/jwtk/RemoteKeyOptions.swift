import ArgumentParser
import Foundation
import JWTKernel
import JWTKernelRemote

/// `jwtk verify` options that route tokens by issuer: a provider preset, a key
/// URL for one issuer, an OpenID Connect issuer found by discovery (`--oidc`), or a
/// configuration file of several issuers. A preset takes
/// its keys from the provider, from a mirror (`--jwks-url`, or `jwks_url` in its
/// configuration entry) or from `--jwks` files (offline, no network). Keys are
/// fetched once, before the first token, on the calling thread (the refresher's
/// thread is never started by the CLI).
struct RemoteKeyOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Provider preset: apple, google, firebase, facebook, line, microsoft. --aud is its client/app/project/channel ID; keys from the provider, --jwks-url (a mirror) or --jwks files (offline).",
            valueName: "NAME"))
    var provider: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Microsoft tenant ID for --provider microsoft (none: multi-tenant, iss checked against tid).",
            valueName: "TENANT"))
    var tenant: String?

    @Option(
        name: .customLong("jwks-url"),
        help: ArgumentHelp(
            "Fetch the key set of the one --iss, or of the --provider (a mirror), from this URL.", valueName: "URL"))
    var jwksURL: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "OpenID Connect issuer: keys from the jwks_uri of ISSUER/.well-known/openid-configuration, whose issuer must be exactly ISSUER (so must the tokens' iss). https, or http to loopback.",
            valueName: "ISSUER"))
    var oidc: String?

    @Option(
        name: .customLong("issuer-config"),
        help: ArgumentHelp(
            "JSON file listing issuers: {\"issuers\":[{\"issuer\":..,\"jwks_url\":.. or \"discovery\":true,\"audiences\":[..]} or {\"provider\":..,\"audiences\":[..],\"jwks_url\":mirror}]}.",
            valueName: "FILE"))
    var issuerConfig: String?

    @Option(name: .customLong("fetch-timeout"), help: ArgumentHelp("Seconds for each key fetch.", valueName: "SECONDS"))
    var fetchTimeout: Double = 10

    var isConfigured: Bool { provider != nil || jwksURL != nil || issuerConfig != nil || oidc != nil }

    /// `--jwks` files combine with `--provider` only (the preset's policy, keys from the files);
    /// options the chosen source would not use are refused rather than ignored.
    func validate(hasKeyFiles: Bool, issuers: [String], audiences: [String]) throws {
        if oidc != nil {
            guard provider == nil, jwksURL == nil, issuerConfig == nil, !hasKeyFiles else {
                throw ValidationError(
                    "--oidc finds the issuer's keys itself; it cannot be combined with --provider, --jwks-url, --issuer-config or --jwks"
                )
            }
            guard issuers.isEmpty else { throw ValidationError("--oidc sets the issuer; drop --iss") }
        }
        if issuerConfig != nil {
            guard provider == nil, jwksURL == nil, !hasKeyFiles else {
                throw ValidationError("--issuer-config cannot be combined with --provider, --jwks-url or --jwks")
            }
            guard issuers.isEmpty, audiences.isEmpty else {
                throw ValidationError("--iss and --aud are given per issuer in the --issuer-config file")
            }
        }
        if let provider {
            guard !(hasKeyFiles && jwksURL != nil) else {
                throw ValidationError("--provider takes its keys from --jwks files or from --jwks-url, not both")
            }
            guard issuers.isEmpty else { throw ValidationError("--provider \(provider) sets the issuers; drop --iss") }
        } else if jwksURL != nil {
            guard !hasKeyFiles else { throw ValidationError("--jwks files cannot be combined with --jwks-url") }
            guard issuers.count == 1 else { throw ValidationError("--jwks-url needs exactly one --iss") }
        }
        if tenant != nil, provider != "microsoft" { throw ValidationError("--tenant is for --provider microsoft") }
        guard fetchTimeout > 0, fetchTimeout <= 600 else {
            throw ValidationError("--fetch-timeout must be between 0 and 600")
        }
    }

    /// Publishes `keyFiles` (with `--provider`) or fetches every issuer's keys once, and builds the
    /// verifier. `base` carries the command line's policy options (leeway, nonce, typ, required claims, algorithms).
    func makeVerifier(
        base: ClaimsPolicy, keyFiles: JWKSet?, clock: any JWTClock, maxTokenSize: Int
    ) throws -> MultiIssuerVerifier {
        var sources: [(keyIssuer: String, url: String, localKeys: JWKSet?)] = []
        var discovered: [String] = []  // issuers whose keys are found through their discovery document
        var routes: [IssuerConfiguration] = []
        let store = KeyStore()
        func addPreset(_ preset: ProviderPreset) {
            routes += preset.issuers.map { route in
                var route = route
                route.policy = Self.merge(preset: route.policy, base: base)
                return route
            }
            if let keyFiles {
                // Offline: the files are the provider's keys, plus what the preset configures locally.
                store.publish(preset.localKeys.map(keyFiles.merging) ?? keyFiles, forIssuer: preset.keyIssuer)
            } else {
                sources.append((preset.keyIssuer, preset.keyURL, preset.localKeys))
            }
        }
        if let provider {
            let preset = try Self.preset(provider, audiences: base.audiences, tenant: tenant)
            addPreset(jwksURL.map(preset.mirrored(at:)) ?? preset)
        } else if let jwksURL {
            sources.append((base.issuers[0], jwksURL, nil))
            routes.append(IssuerConfiguration(issuer: base.issuers[0], policy: base))
        } else if let oidc {
            var policy = base
            policy.issuers = [oidc]
            discovered.append(oidc)
            routes.append(IssuerConfiguration(issuer: oidc, policy: policy))
        } else if let issuerConfig {
            for item in try IssuerConfigFile.load(issuerConfig) {
                if let name = item.provider {
                    let preset = try Self.preset(name, audiences: item.audiences, tenant: item.tenant)
                    addPreset(item.jwksURL.map(preset.mirrored(at:)) ?? preset)
                } else if let issuer = item.issuer {
                    var policy = base
                    policy.issuers = [issuer]
                    policy.audiences = item.audiences
                    if let algorithms = item.algorithms { policy.algorithms = algorithms }
                    if item.discovery {
                        discovered.append(issuer)
                    } else if let url = item.jwksURL {
                        sources.append((issuer, url, nil))
                    }
                    routes.append(IssuerConfiguration(issuer: issuer, policy: policy))
                }
            }
        }
        try fetch(sources, discovered: discovered, into: store)
        return MultiIssuerVerifier(store: store, issuers: routes, clock: clock, maxTokenSize: maxTokenSize)
    }

    /// One fetch per source on this thread (with discovery: the document, then the keys it names); a
    /// source that fails is reported, and none loading is an error.
    private func fetch(
        _ sources: [(keyIssuer: String, url: String, localKeys: JWKSet?)], discovered: [String], into store: KeyStore
    ) throws {
        guard !sources.isEmpty || !discovered.isEmpty else { return }
        let refresher = KeyRefresher(store: store)
        var config = HTTPKeySourceConfiguration()
        config.totalTimeout = fetchTimeout
        for source in sources {
            do {
                refresher.add(
                    issuer: source.keyIssuer, source: try HTTPKeySource(url: source.url, configuration: config),
                    localKeys: source.localKeys)
            } catch {
                throw ConfigurationError("\(source.url): \(error)")
            }
        }
        for issuer in discovered {
            do { refresher.add(discovery: try OpenIDDiscovery(issuer: issuer, configuration: config)) } catch {
                throw ConfigurationError("--oidc / discovery \(issuer): \(error)")
            }
        }
        refresher.refreshDue()
        var loaded = 0
        for stats in refresher.allStats {
            if let error = stats.lastError {
                FileHandle.standardError.write(Data("jwtk: warning: keys for \(stats.issuer): \(error)\n".utf8))
            }
            for reason in stats.rejectedReasons {
                FileHandle.standardError.write(
                    Data("jwtk: warning: keys for \(stats.issuer): skipped \(reason)\n".utf8))
            }
            if store.keys(forIssuer: stats.issuer) != nil { loaded += 1 }
        }
        guard loaded > 0 else {
            throw ConfigurationError("no keys could be loaded from any key URL or discovery document")
        }
    }

    static func preset(_ name: String, audiences: [String], tenant: String?) throws -> ProviderPreset {
        guard !audiences.isEmpty else {
            throw ConfigurationError("--provider \(name) needs --aud (its client, app, project or channel ID)")
        }
        switch name {
        case "apple": return .apple(audience: audiences)
        case "google": return .google(clientIDs: audiences)
        case "firebase": return .firebase(projectID: audiences[0])
        case "facebook": return .facebook(appIDs: audiences)
        case "line": return try .line(channelID: audiences[0])
        case "microsoft":
            return tenant.map { .microsoft(tenantID: $0, clientIDs: audiences) }
                ?? .microsoftMultiTenant(clientIDs: audiences)
        default:
            throw ConfigurationError("unknown provider \(name) (apple, google, firebase, facebook, line, microsoft)")
        }
    }

    /// The preset's checks, plus what the command line adds (leeway, nonce, typ, required claims, claim requirements).
    static func merge(preset: ClaimsPolicy, base: ClaimsPolicy) -> ClaimsPolicy {
        var policy = preset
        policy.leeway = base.leeway
        if let nonce = base.expectedNonce { policy.expectedNonce = nonce }
        if let typ = base.expectedType { policy.expectedType = typ }
        policy.requiredClaims += base.requiredClaims.filter { !policy.requiredClaims.contains($0) }
        policy.claimRequirements += base.claimRequirements
        if base.algorithms != .all {
            policy.algorithms = AlgorithmSet(policy.algorithms.algorithms.filter { base.algorithms.contains($0) })
        }
        return policy
    }
}
