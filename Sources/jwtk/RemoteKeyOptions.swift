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
        let store = KeyStore()
        let refresher = KeyRefresher(store: store)
        var config = HTTPKeySourceConfiguration()
        config.totalTimeout = fetchTimeout
        var routes: [IssuerConfiguration] = []
        do {
            if let provider {
                guard !base.audiences.isEmpty else {
                    throw ConfigurationError(
                        "--provider \(provider) needs --aud (\(ProviderPreset.audienceName(provider: provider)))")
                }
                var preset = try ProviderPreset.named(provider, audiences: base.audiences, tenant: tenant)
                if let jwksURL { preset = preset.mirrored(at: jwksURL) }
                routes = preset.issuers.map { route in
                    var route = route
                    route.policy = route.policy.adding(base)
                    return route
                }
                if let keyFiles {
                    // Offline: the files are the provider's keys, plus what the preset configures locally.
                    store.publish(preset.localKeys.map(keyFiles.merging) ?? keyFiles, forIssuer: preset.keyIssuer)
                } else {
                    try refresher.add(preset: preset, configuration: config)
                }
            } else if let jwksURL {
                refresher.add(issuer: base.issuers[0], source: try HTTPKeySource(url: jwksURL, configuration: config))
                routes = [IssuerConfiguration(issuer: base.issuers[0], policy: base)]
            } else if let oidc {
                var policy = base
                policy.issuers = [oidc]
                refresher.add(discovery: try OpenIDDiscovery(issuer: oidc, configuration: config))
                routes = [IssuerConfiguration(issuer: oidc, policy: policy)]
            } else if let issuerConfig {
                guard let data = FileManager.default.contents(atPath: issuerConfig) else {
                    throw ConfigurationError("\(issuerConfig): cannot read the issuer configuration")
                }
                do {
                    routes = try refresher.register(
                        IssuerConfigurationFile(parsing: Array(data)), base: base, configuration: config)
                } catch {
                    throw ConfigurationError("\(issuerConfig): \(error.description)")
                }
            }
        } catch let error as IssuerConfigurationError {
            throw ConfigurationError(error.description)
        } catch let error as KeySourceError {
            throw ConfigurationError("\(jwksURL ?? oidc ?? provider ?? ""): \(error)")
        }
        try fetchOnce(refresher, store: store)
        return MultiIssuerVerifier(store: store, issuers: routes, clock: clock, maxTokenSize: maxTokenSize)
    }

    /// One fetch per registered source on this thread (with discovery: the document, then the keys it
    /// names); a source that fails is reported, and none loading is an error.
    private func fetchOnce(_ refresher: KeyRefresher, store: KeyStore) throws {
        guard !refresher.allStats.isEmpty else { return }
        refresher.refreshDue()
        var loaded = 0
        for stats in refresher.allStats {
            if let error = stats.lastError {
                CLIError.warn("keys for \(stats.issuer): \(error)")
            }
            for reason in stats.rejectedReasons {
                CLIError.warn("keys for \(stats.issuer): skipped \(reason)")
            }
            if store.keys(forIssuer: stats.issuer) != nil { loaded += 1 }
        }
        guard loaded > 0 else {
            throw ConfigurationError("no keys could be loaded from any key URL or discovery document")
        }
    }
}
