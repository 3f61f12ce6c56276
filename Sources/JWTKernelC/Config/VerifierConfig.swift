import CJWTK
import JWTKernel
import JWTKernelRemote

/// Parses a verifier's JSON configuration (jwtk.h lists the keys) with the CLI's vocabulary.
/// Every key is checked: an unknown key, a wrong type or an out-of-range value is an error whose
/// message names the key; nothing is ignored.
enum VerifierConfig {
    static func parse(_ bytes: UnsafeRawBufferPointer) throws(StatusError) -> VerifierSettings {
        let document: JSONValue
        do { document = try JSONValue.parse(bytes) } catch {
            throw StatusError(JWTK_E_CONFIG, "config is not valid JSON: \(error.message(locatedIn: bytes))")
        }
        guard let members = document.objectValue else {
            throw StatusError(JWTK_E_CONFIG, "config must be a JSON object")
        }
        var settings = VerifierSettings()
        // Members of another provider first: "tenant_id" beside Apple is refused by its C name.
        try checkPresetKeys(document)
        let provider = try document["provider"].map { (value) throws(StatusError) in try preset(value, document) }
        if let provider {
            settings.policy = provider.issuers[0].policy
            settings.policy.issuers = provider.issuerNames
        }
        var pull = PullOptions()
        for member in members {
            try apply(member.name, member.value, to: &settings, pull: &pull)
        }
        settings.remote = try remote(pull, settings.policy, provider, document)
        if let value = document["channel_secret"] {
            let local = try channelSecret(value, document, settings.policy)
            settings.localSecret = local
            settings.remote?.localKeys = local.keys
            settings.remote?.localSecret = local.secret
        }
        return settings
    }

    private static func apply(
        _ key: String, _ value: JSONValue, to s: inout VerifierSettings, pull: inout PullOptions
    ) throws(StatusError) {
        switch key {
        case "issuers": s.policy.issuers = try strings(key, value)
        case "audiences": s.policy.audiences = try strings(key, value)
        case "algorithms": s.policy.algorithms = try algorithms(key, value)
        case "leeway": s.policy.leeway = try integer(key, value, 0...Int64(Int32.max))
        case "require_exp": s.policy.requireExpiration = try bool(key, value)
        case "reject_iat_in_future": s.policy.rejectIssuedInFuture = try bool(key, value)
        case "max_age": s.policy.maxAge = try integer(key, value, 1...Int64(Int32.max))
        case "required_claims":
            let names = try strings(key, value)
            guard names.count <= InputLimits.requiredClaims else {
                throw StatusError(JWTK_E_CONFIG, "required_claims: at most \(InputLimits.requiredClaims) names")
            }
            s.policy.requiredClaims = names
        case "nonce": s.policy.expectedNonce = try string(key, value)
        case "typ": s.policy.expectedType = try string(key, value)
        case "claims": s.policy.claimRequirements = try ClaimRequirementsConfig.parse(value)
        case "max_token_size": s.maxTokenSize = Int(try integer(key, value, 1...Int64(InputLimits.maxTokenSize)))
        case "cache": s.cache = try cache(value)
        case "batch_threads": s.batchThreads = Int(try integer(key, value, 1...1024))
        case "token_type":
            guard let type = TokenType(rawValue: try string(key, value)) else {
                throw StatusError(JWTK_E_CONFIG, "token_type: \"signed\", \"nested\" or \"encrypted\"")
            }
            s.tokenType = type
        case "provider", "project_id", "tenant_id": break  // read by `preset`
        case "channel_secret": break  // read by `channelSecret`
        case "jwks_url": pull.url = try string(key, value)
        case "discovery": pull.discovery = try bool(key, value)
        case "pull": pull.pull = try bool(key, value)
        // Lower bounds: no schedule can refetch without pause (RefreshPolicy.Bounds, whose upper bounds these match).
        case "cooldown": pull.cooldown = try integer(key, value, 1...86_400)
        case "max_staleness": pull.maxStaleness = try integer(key, value, 1...(366 * 86_400))
        case "refresh_min": pull.refreshMin = try integer(key, value, 1...(366 * 86_400))
        case "refresh_max": pull.refreshMax = try integer(key, value, 1...(366 * 86_400))
        default:
            throw StatusError(JWTK_E_CONFIG, "unknown config key \"\(key)\"")
        }
    }

    /// "project_id" and "tenant_id" belong to one provider each; anywhere else they would be ignored.
    private static func checkPresetKeys(_ document: JSONValue) throws(StatusError) {
        let provider = document["provider"]?.stringValue
        if document["project_id"] != nil, provider != "firebase" {
            throw StatusError(JWTK_E_CONFIG, "project_id: only with provider firebase")
        }
        if document["tenant_id"] != nil, provider != "microsoft" {
            throw StatusError(JWTK_E_CONFIG, "tenant_id: only with provider microsoft")
        }
    }

    /// Pull mode: "jwks_url", or "provider" with "pull": true (the preset's key URL). With "provider",
    /// "jwks_url" is a mirror of the provider's keys: the preset's policy, keys from that URL. The
    /// schedule keys without either are an error, as are a URL without known issuers and "pull": false
    /// beside a URL (which would otherwise be pulled anyway).
    private static func remote(
        _ pull: PullOptions, _ policy: ClaimsPolicy, _ provider: ProviderPreset?, _ document: JSONValue
    ) throws(StatusError) -> RemoteKeys? {
        if pull.pull == false, pull.url != nil {
            throw StatusError(JWTK_E_CONFIG, "pull: false contradicts jwks_url (drop one)")
        }
        if pull.pull == false, pull.discovery == true {
            throw StatusError(JWTK_E_CONFIG, "pull: false contradicts discovery: true (drop one)")
        }
        if pull.isEmpty || pull.pull == false {
            if pull.cooldown != nil || pull.maxStaleness != nil || pull.refreshMin != nil || pull.refreshMax != nil {
                throw StatusError(
                    JWTK_E_CONFIG, "cooldown, max_staleness, refresh_min, refresh_max: need jwks_url or discovery")
            }
            return nil
        }
        let refresh = try schedule(pull)
        if pull.discovery == true { return try discovery(pull, policy, document, refresh) }
        guard let url = pull.url ?? provider?.keyURL else {
            throw StatusError(JWTK_E_CONFIG, "pull: needs jwks_url, or a provider whose key URL is known")
        }
        guard let first = policy.issuers.first else {
            throw StatusError(JWTK_E_CONFIG, "jwks_url: needs the token issuer(s): give issuers or a provider")
        }
        return RemoteKeys(url: url, keyIssuer: first, issuers: policy.issuers, localKeys: nil, policy: refresh)
    }

    /// "discovery": true: the one issuer's keys found through its OpenID Connect discovery document
    /// (JWTKernelRemote's OpenIDDiscovery, which checks the issuer URL here, before any fetch). A key URL
    /// beside it, a provider (whose preset knows its key URL) or several issuers would leave it
    /// ambiguous which keys are whose, so each is refused.
    private static func discovery(
        _ pull: PullOptions, _ policy: ClaimsPolicy, _ document: JSONValue, _ refresh: RefreshPolicy
    ) throws(StatusError) -> RemoteKeys {
        if pull.url != nil {
            throw StatusError(JWTK_E_CONFIG, "discovery: true finds the key URL; drop jwks_url (or discovery)")
        }
        if document["provider"] != nil {
            throw StatusError(
                JWTK_E_CONFIG, "discovery: not with provider (its preset knows the key URL; jwks_url for a mirror)")
        }
        guard policy.issuers.count == 1, let issuer = policy.issuers.first else {
            throw StatusError(JWTK_E_CONFIG, "discovery: needs \"issuers\" naming exactly one issuer")
        }
        do { _ = try OpenIDDiscovery(issuer: issuer) } catch {
            throw StatusError(JWTK_E_CONFIG, "discovery: \(error.message)")
        }
        return RemoteKeys(
            url: issuer, discovery: true, keyIssuer: issuer, issuers: [issuer], localKeys: nil, policy: refresh)
    }

    /// The key fetches' schedule from "cooldown", "max_staleness", "refresh_min" and "refresh_max".
    private static func schedule(_ pull: PullOptions) throws(StatusError) -> RefreshPolicy {
        var refresh = RefreshPolicy()
        if let c = pull.cooldown { refresh.unknownKidCooldown = Double(c) }
        if let m = pull.maxStaleness { refresh.maxStaleness = Double(m) }
        if let lo = pull.refreshMin { refresh.minMaxAge = Double(lo) }
        if let hi = pull.refreshMax { refresh.maxMaxAge = Double(hi) }
        guard refresh.minMaxAge <= refresh.maxMaxAge else {
            throw StatusError(JWTK_E_CONFIG, "refresh_min: must not exceed refresh_max")
        }
        // Without max-age the document lives 10 min, clamped into the configured range.
        refresh.defaultMaxAge = min(max(refresh.defaultMaxAge, refresh.minMaxAge), refresh.maxMaxAge)
        return refresh
    }

    /// LINE web login's channel secret: HS256 tokens are verified with it (Swift: `ProviderPreset.line(channelSecret:)`).
    /// Only with provider "line"; at least 32 bytes (the hash length). Its tokens name no kid.
    private static func channelSecret(
        _ value: JSONValue, _ document: JSONValue, _ policy: ClaimsPolicy
    ) throws(StatusError) -> LocalSecret {
        guard document["provider"]?.stringValue == "line" else {
            throw StatusError(JWTK_E_CONFIG, "channel_secret: only with provider line")
        }
        guard let issuer = policy.issuers.first else {
            throw StatusError(JWTK_E_CONFIG, "channel_secret: needs the token issuer(s)")
        }
        return try LocalSecret(channelSecret: try string("channel_secret", value), issuer: issuer)
    }

    /// The preset "provider" names, from `ProviderPreset.named` (the one provider table of every surface;
    /// its audience rule included); explicit members override the preset's values afterwards. The C
    /// names of its options: "project_id" (Firebase: required here, and the audience unless "audiences" is
    /// given), "tenant_id" (Microsoft: required here, since a verifier holds one policy and so no multi-tenant
    /// template), "channel_secret" (LINE: checked with the C library's rules first, so its error names it).
    private static func preset(_ value: JSONValue, _ document: JSONValue) throws(StatusError) -> ProviderPreset {
        guard let name = value.stringValue else { throw StatusError(JWTK_E_CONFIG, "provider: expected a string") }
        var audiences = try document["audiences"].map { (v) throws(StatusError) in try strings("audiences", v) } ?? []
        let projectID = try document["project_id"].map { (v) throws(StatusError) in try string("project_id", v) }
        let tenant = try document["tenant_id"].map { (v) throws(StatusError) in try string("tenant_id", v) }
        let secret = try document["channel_secret"].map { (v) throws(StatusError) in try string("channel_secret", v) }
        switch name {
        case "firebase":
            guard let projectID else { throw StatusError(JWTK_E_CONFIG, "provider firebase: project_id is required") }
            if document["audiences"] == nil { audiences = [projectID] }
        case "microsoft":
            guard tenant != nil else { throw StatusError(JWTK_E_CONFIG, "provider microsoft: tenant_id is required") }
        case "line":
            if let secret { _ = try LocalSecret(channelSecret: secret, issuer: "-") }
        default: break
        }
        do {
            return try ProviderPreset.named(
                name, audiences: audiences, tenant: tenant, projectID: projectID,
                channelSecret: name == "line" ? secret : nil)
        } catch {
            throw StatusError(JWTK_E_CONFIG, "provider: \(error.description)")
        }
    }

    private static func cache(_ value: JSONValue) throws(StatusError) -> VerifiedTokenCache.Configuration? {
        if case .bool(let on) = value { return on ? VerifiedTokenCache.Configuration() : nil }
        guard let members = value.objectValue else {
            throw StatusError(JWTK_E_CONFIG, "cache: expected true, false or an object")
        }
        var c = VerifiedTokenCache.Configuration()
        for m in members {
            switch m.name {
            case "capacity": c.capacity = Int(try integer("cache.capacity", m.value, 1...(1 << 24)))
            case "max_token_size": c.maxTokenSize = Int(try integer("cache.max_token_size", m.value, 1...(1 << 20)))
            case "shards": c.shards = Int(try integer("cache.shards", m.value, 1...1024))
            default: throw StatusError(JWTK_E_CONFIG, "unknown config key \"cache.\(m.name)\"")
            }
        }
        return c
    }

    private static func string(_ key: String, _ value: JSONValue) throws(StatusError) -> String {
        guard let s = value.stringValue else { throw StatusError(JWTK_E_CONFIG, "\(key): expected a string") }
        return s
    }

    private static func strings(_ key: String, _ value: JSONValue) throws(StatusError) -> [String] {
        guard let list = value.arrayValue else {
            throw StatusError(JWTK_E_CONFIG, "\(key): expected an array of strings")
        }
        var out: [String] = []
        for item in list {
            guard let s = item.stringValue else {
                throw StatusError(JWTK_E_CONFIG, "\(key): expected an array of strings")
            }
            out.append(s)
        }
        return out
    }

    private static func bool(_ key: String, _ value: JSONValue) throws(StatusError) -> Bool {
        guard case .bool(let b) = value else { throw StatusError(JWTK_E_CONFIG, "\(key): expected true or false") }
        return b
    }

    /// Whole numbers only ("60", not "60.0" or "6e1"), within `range`.
    private static func integer(
        _ key: String, _ value: JSONValue, _ range: ClosedRange<Int64>
    ) throws(StatusError) -> Int64 {
        guard case .number(let text) = value, let n = Int64(text), range.contains(n) else {
            throw StatusError(JWTK_E_CONFIG, "\(key): expected an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return n
    }

    private static func algorithms(_ key: String, _ value: JSONValue) throws(StatusError) -> AlgorithmSet {
        var set = AlgorithmSet()
        for name in try strings(key, value) {
            guard let alg = JWTAlgorithm(rawValue: name) else {
                throw StatusError(JWTK_E_CONFIG, "\(key): \"\(name)\" is not an algorithm jwtk verifies")
            }
            set.insert(AlgorithmSet([alg]))
        }
        guard !set.isEmpty else { throw StatusError(JWTK_E_CONFIG, "\(key): name at least one algorithm") }
        return set
    }
}
