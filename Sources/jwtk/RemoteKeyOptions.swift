import ArgumentParser
import Foundation
import JWTKernel
import JWTKernelRemote

/// `jwtk verify` options whose keys are fetched rather than read from `--jwks`
/// files: a provider preset, a key URL for one issuer, or a configuration file
/// of several issuers. Keys are fetched once, before the first token, on the
/// calling thread (the refresher's thread is never started by the CLI).
struct RemoteKeyOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Provider preset: apple, google, firebase, facebook, line, microsoft. --aud is its client/app/project/channel ID.",
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
        help: ArgumentHelp("Fetch the key set of the one --iss from this URL.", valueName: "URL"))
    var jwksURL: String?

    @Option(
        name: .customLong("issuer-config"),
        help: ArgumentHelp(
            "JSON file listing issuers: {\"issuers\":[{\"issuer\":..,\"jwks_url\":..,\"audiences\":[..]} or {\"provider\":..,\"audiences\":[..]}]}.",
            valueName: "FILE"))
    var issuerConfig: String?

    @Option(name: .customLong("fetch-timeout"), help: ArgumentHelp("Seconds for each key fetch.", valueName: "SECONDS"))
    var fetchTimeout: Double = 10

    var isConfigured: Bool { provider != nil || jwksURL != nil || issuerConfig != nil }

    func validate(hasKeyFiles: Bool, issuers: [String]) throws {
        let given = [provider != nil, jwksURL != nil, issuerConfig != nil].filter { $0 }.count
        guard given <= 1 else { throw ValidationError("use one of --provider, --jwks-url, --issuer-config") }
        guard !(given == 1 && hasKeyFiles) else {
            throw ValidationError("--jwks files cannot be combined with fetched keys")
        }
        if jwksURL != nil, issuers.count != 1 { throw ValidationError("--jwks-url needs exactly one --iss") }
        guard fetchTimeout > 0, fetchTimeout <= 600 else {
            throw ValidationError("--fetch-timeout must be between 0 and 600")
        }
    }

    /// Fetches every issuer's keys once and builds the verifier. `base` carries
    /// the command line's policy options (leeway, nonce, typ, required claims, algorithms).
    func makeVerifier(base: ClaimsPolicy, clock: any JWTClock, maxTokenSize: Int) throws -> MultiIssuerVerifier {
        var sources: [(keyIssuer: String, url: String, localKeys: JWKSet?)] = []
        var routes: [IssuerConfiguration] = []
        func addPreset(_ preset: ProviderPreset) {
            sources.append((preset.keyIssuer, preset.keyURL, preset.localKeys))
            routes += preset.issuers.map { route in
                var route = route
                route.policy = Self.merge(preset: route.policy, base: base)
                return route
            }
        }
        if let provider {
            addPreset(try Self.preset(provider, audiences: base.audiences, tenant: tenant))
        } else if let jwksURL {
            sources.append((base.issuers[0], jwksURL, nil))
            routes.append(IssuerConfiguration(issuer: base.issuers[0], policy: base))
        } else if let issuerConfig {
            for item in try IssuerConfigFile.load(issuerConfig) {
                if let name = item.provider {
                    addPreset(try Self.preset(name, audiences: item.audiences, tenant: item.tenant))
                } else if let issuer = item.issuer, let url = item.jwksURL {
                    var policy = base
                    policy.issuers = [issuer]
                    policy.audiences = item.audiences
                    if let algorithms = item.algorithms { policy.algorithms = algorithms }
                    sources.append((issuer, url, nil))
                    routes.append(IssuerConfiguration(issuer: issuer, policy: policy))
                }
            }
        }
        let store = KeyStore()
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
        guard loaded > 0 else { throw ConfigurationError("no keys could be loaded from any key URL") }
        return MultiIssuerVerifier(store: store, issuers: routes, clock: clock, maxTokenSize: maxTokenSize)
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

    /// The preset's checks, plus what the command line adds (leeway, nonce, typ, required claims).
    static func merge(preset: ClaimsPolicy, base: ClaimsPolicy) -> ClaimsPolicy {
        var policy = preset
        policy.leeway = base.leeway
        if let nonce = base.expectedNonce { policy.expectedNonce = nonce }
        if let typ = base.expectedType { policy.expectedType = typ }
        policy.requiredClaims += base.requiredClaims.filter { !policy.requiredClaims.contains($0) }
        if base.algorithms != .all {
            policy.algorithms = AlgorithmSet(policy.algorithms.algorithms.filter { base.algorithms.contains($0) })
        }
        return policy
    }
}

/// `--issuer-config FILE`, read with Foundation's JSON (a configuration file, not token input).
enum IssuerConfigFile {
    struct Item {
        var issuer: String?
        var jwksURL: String?
        var provider: String?
        var tenant: String?
        var audiences: [String] = []
        var algorithms: AlgorithmSet?
    }

    static func load(_ path: String) throws -> [Item] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("\(path): cannot read the issuer configuration")
        }
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let list = root["issuers"] as? [[String: Any]], !list.isEmpty
        else { throw ConfigurationError("\(path): expected {\"issuers\": [ ... ]} with at least one issuer") }
        return try list.enumerated().map { (i, object) in
            var item = Item()
            item.issuer = object["issuer"] as? String
            item.jwksURL = object["jwks_url"] as? String
            item.provider = object["provider"] as? String
            item.tenant = object["tenant"] as? String
            item.audiences = object["audiences"] as? [String] ?? []
            if let names = object["algorithms"] as? [String] {
                var set: AlgorithmSet = []
                for name in names {
                    guard let alg = JWTAlgorithm(rawValue: name) else {
                        throw ConfigurationError("\(path): issuer #\(i + 1): unknown algorithm \(name)")
                    }
                    set.insert(AlgorithmSet([alg]))
                }
                item.algorithms = set
            }
            guard item.provider != nil || (item.issuer != nil && item.jwksURL != nil) else {
                throw ConfigurationError("\(path): issuer #\(i + 1) needs \"provider\", or \"issuer\" and \"jwks_url\"")
            }
            return item
        }
    }
}
