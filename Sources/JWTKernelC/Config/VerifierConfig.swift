import CJWTK
import JWTKernel
import JWTKernelRemote

/// Parses a verifier's JSON configuration: one `IssuerEntry` (the schema the issuer file shares; jwtk.h
/// lists the members, docs/C-API.md their grammar) plus the members only a C verifier has,
/// `"max_token_size"`, `"cache"`, `"batch_threads"` and `"token_type"`. Every member is checked: an unknown one, a wrong
/// type or an out-of-range value is JWTK_E_CONFIG with a message naming it; nothing is ignored.
enum VerifierConfig {
    static func parse(_ bytes: UnsafeRawBufferPointer) throws(StatusError) -> VerifierSettings {
        let document: JSONValue
        do { document = try JSONValue.parse(bytes) } catch {
            throw StatusError(JWTK_E_CONFIG, "config is not valid JSON: \(error.message(locatedIn: bytes))")
        }
        guard document.objectValue != nil else { throw StatusError(JWTK_E_CONFIG, "config must be a JSON object") }
        var settings = VerifierSettings()
        do {
            let entry = try IssuerEntry(parsing: document) { (name, value) throws(IssuerConfigurationError) in
                try own(name, value, &settings)
            }
            try resolve(entry, into: &settings)
        } catch {
            throw StatusError(JWTK_E_CONFIG, error.description)
        }
        return settings
    }

    /// The members only a C verifier has; false for any other.
    private static func own(
        _ name: String, _ value: JSONValue, _ s: inout VerifierSettings
    ) throws(IssuerConfigurationError) -> Bool {
        switch name {
        case "max_token_size":
            s.maxTokenSize = Int(try ConfigMember.integer(name, value, 1...Int64(InputLimits.maxTokenSize)))
        case "cache": s.cache = try cache(value)
        case "batch_threads": s.batchThreads = Int(try ConfigMember.integer(name, value, 1...1024))
        case "token_type":
            guard let type = TokenType(rawValue: try ConfigMember.string(name, value)) else {
                throw IssuerConfigurationError("\"token_type\": expected \"signed\", \"nested\" or \"encrypted\"")
            }
            s.tokenType = type
        default: return false
        }
        return true
    }

    /// The entry's policy and key source as one verifier holds them.
    private static func resolve(_ entry: IssuerEntry, into s: inout VerifierSettings) throws(IssuerConfigurationError) {
        let preset = try entry.preset()
        if let preset {
            // One verifier holds one policy, so the multi-tenant preset (a route per tenant) is not one.
            if entry.provider == "microsoft", entry.tenant == nil {
                throw IssuerConfigurationError(
                    "provider microsoft: \"tenant\" is required in a C verifier (one policy; the multi-tenant preset needs the routing of an issuer file)"
                )
            }
            s.policy = entry.policy(over: preset.issuers[0].policy)
            s.policy.issuers = preset.issuerNames
        } else {
            s.policy = entry.issuerPolicy()
        }
        s.remote = try remote(entry, s.policy, preset)
        if let secret = entry.channelSecret, let issuer = s.policy.issuers.first {
            let local = try LocalSecret(channelSecret: secret, issuer: issuer)
            s.localSecret = local
            s.remote?.localKeys = local.keys
            s.remote?.localSecret = local.secret
        }
    }

    /// Pull mode: "jwks_url", or "provider" with "pull": true (the preset's key URL), or "discovery": true.
    /// With "provider", "jwks_url" is a mirror of the provider's keys. Schedule members without a source are
    /// an error (they would be ignored), as is a URL without known issuers.
    private static func remote(
        _ entry: IssuerEntry, _ policy: ClaimsPolicy, _ preset: ProviderPreset?
    ) throws(IssuerConfigurationError) -> RemoteKeys? {
        let keys = entry.keys
        let pulls = keys.pull == true || keys.jwksURL != nil || keys.discovery == true
        guard pulls else {
            if keys.hasSchedule {
                throw IssuerConfigurationError(
                    "\"cooldown\", \"max_staleness\", \"refresh_min\", \"refresh_max\": need \"jwks_url\" or \"discovery\""
                )
            }
            return nil
        }
        let refresh = try keys.refreshPolicy()
        if keys.discovery == true {
            let issuer = entry.issuers[0]  // IssuerEntry checked: exactly one
            return RemoteKeys(
                url: issuer, discovery: true, keyIssuer: issuer, issuers: [issuer], localKeys: nil, policy: refresh)
        }
        guard let url = keys.jwksURL ?? preset?.keyURL else {
            throw IssuerConfigurationError("\"pull\": needs \"jwks_url\", or a provider whose key URL is known")
        }
        guard let first = policy.issuers.first else {
            throw IssuerConfigurationError("\"jwks_url\": needs the token issuer(s): give \"issuers\" or a provider")
        }
        return RemoteKeys(url: url, keyIssuer: first, issuers: policy.issuers, localKeys: nil, policy: refresh)
    }

    private static func cache(_ value: JSONValue) throws(IssuerConfigurationError) -> VerifiedTokenCache.Configuration?
    {
        if case .bool(let on) = value { return on ? VerifiedTokenCache.Configuration() : nil }
        guard let members = value.objectValue else {
            throw IssuerConfigurationError("\"cache\": expected true, false or an object")
        }
        var c = VerifiedTokenCache.Configuration()
        for m in members {
            let name = "cache.\(m.name)"
            switch m.name {
            case "capacity": c.capacity = Int(try ConfigMember.integer(name, m.value, 1...(1 << 24)))
            case "max_token_size": c.maxTokenSize = Int(try ConfigMember.integer(name, m.value, 1...(1 << 20)))
            case "shards": c.shards = Int(try ConfigMember.integer(name, m.value, 1...1024))
            default: throw IssuerConfigurationError("unknown member \"\(name)\"")
            }
        }
        return c
    }
}
