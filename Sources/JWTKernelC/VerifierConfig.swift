import CJWTK
import JWTKernel

/// Parses a verifier's JSON configuration (jwtk.h lists the keys) with the CLI's vocabulary.
/// Every key is checked: an unknown key, a wrong type or an out-of-range value is an error whose
/// message names the key; nothing is ignored.
enum VerifierConfig {
    static func parse(_ bytes: UnsafeRawBufferPointer) throws(StatusError) -> VerifierSettings {
        let document: JSONValue
        do { document = try JSONValue.parse(bytes) } catch {
            throw StatusError(JWTK_E_CONFIG, "config is not valid JSON: \(error.message)")
        }
        guard let members = document.objectValue else {
            throw StatusError(JWTK_E_CONFIG, "config must be a JSON object")
        }
        var settings = VerifierSettings()
        if let provider = document["provider"] {
            settings.policy = try preset(provider, document)
        }
        for member in members {
            try apply(member.name, member.value, to: &settings)
        }
        return settings
    }

    private static func apply(_ key: String, _ value: JSONValue, to s: inout VerifierSettings) throws(StatusError) {
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
        case "max_token_size": s.maxTokenSize = Int(try integer(key, value, 1...Int64(InputLimits.maxTokenSize)))
        case "cache": s.cache = try cache(value)
        case "batch_threads": s.batchThreads = Int(try integer(key, value, 1...1024))
        case "provider", "project_id", "tenant_id": break  // read by `preset`
        case "jwks_url", "cooldown", "max_staleness":
            throw StatusError(
                JWTK_E_UNAVAILABLE,
                "\(key): remote key sets are not available in this build; push keys with jwtk_keystore_load_jwks")
        default:
            throw StatusError(JWTK_E_CONFIG, "unknown config key \"\(key)\"")
        }
    }

    /// A provider preset's issuers, algorithms and required claims; explicit keys override them.
    private static func preset(_ value: JSONValue, _ document: JSONValue) throws(StatusError) -> ClaimsPolicy {
        guard let name = value.stringValue else { throw StatusError(JWTK_E_CONFIG, "provider: expected a string") }
        let audiences = try document["audiences"].map { (v) throws(StatusError) in try strings("audiences", v) } ?? []
        switch name {
        case "apple": return .apple(audience: audiences)
        case "google": return .google(clientIDs: audiences)
        case "facebook": return .facebook(appIDs: audiences)
        case "line": return .line(channelIDs: audiences)
        case "firebase":
            guard let id = document["project_id"] else {
                throw StatusError(JWTK_E_CONFIG, "provider firebase: project_id is required")
            }
            return .firebase(projectID: try string("project_id", id))
        case "microsoft":
            guard let id = document["tenant_id"] else {
                throw StatusError(JWTK_E_CONFIG, "provider microsoft: tenant_id is required")
            }
            return .microsoft(tenantID: try string("tenant_id", id), clientIDs: audiences)
        default:
            throw StatusError(
                JWTK_E_CONFIG,
                "provider: unknown provider \"\(name)\" (apple, google, firebase, facebook, line, microsoft)")
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
