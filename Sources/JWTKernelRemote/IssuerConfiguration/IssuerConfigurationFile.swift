public import JWTKernel

/// The issuer configuration file shared by `jwtk verify --issuer-config` and `jwtk-forward-auth`:
/// `{"issuers": [entry, ...]}`, read with the kernel's strict JSON reader (duplicate member names are
/// refused). Every member is checked: an unknown one, a wrong type or a member that does not fit its entry
/// is an error that names it, as in the C library's configuration. One parser, so the CLI and the agent
/// can never read the same file differently.
public struct IssuerConfigurationFile: Sendable {
    /// One entry: an issuer with its key URL, an issuer with `"discovery": true` (its key URL from its
    /// OpenID Connect discovery document), or a provider preset (keys from the preset's URL, or from
    /// `jwks_url`, a mirror).
    public struct Entry: Sendable, Equatable {
        public var issuer: String?
        public var jwksURL: String?
        public var discovery = false
        public var provider: String?
        public var tenant: String?
        public var audiences: [String] = []
        public var algorithms: AlgorithmSet?
    }

    public var entries: [Entry]

    /// Parses the file's bytes.
    public init(parsing bytes: [UInt8]) throws(IssuerConfigurationError) {
        let root: JSONValue
        do { root = try JSONValue.parse(bytes) } catch {
            throw IssuerConfigurationError("not valid JSON: \(error.message(locatedIn: bytes))")
        }
        guard let members = root.objectValue else {
            throw IssuerConfigurationError("expected {\"issuers\": [ ... ]}")
        }
        for member in members where member.name != "issuers" {
            throw IssuerConfigurationError("unknown member \"\(member.name)\" (expected only \"issuers\")")
        }
        guard let list = root["issuers"]?.arrayValue, !list.isEmpty else {
            throw IssuerConfigurationError("expected {\"issuers\": [ ... ]} with at least one issuer")
        }
        var entries: [Entry] = []
        for (i, entry) in list.enumerated() {
            do { entries.append(try Self.entry(entry)) } catch {
                throw IssuerConfigurationError("issuer #\(i + 1): \(error.description)")
            }
        }
        self.entries = entries
    }

    private static func entry(_ value: JSONValue) throws(IssuerConfigurationError) -> Entry {
        guard let members = value.objectValue else { throw IssuerConfigurationError("expected an object") }
        var item = Entry()
        for member in members {
            let value = member.value
            switch member.name {
            case "issuer": item.issuer = try string(member.name, value)
            case "jwks_url": item.jwksURL = try string(member.name, value)
            case "discovery":
                guard case .bool(let on) = value else {
                    throw IssuerConfigurationError("\"discovery\": expected true or false")
                }
                item.discovery = on
            case "provider": item.provider = try string(member.name, value)
            case "tenant": item.tenant = try string(member.name, value)
            case "audiences": item.audiences = try strings(member.name, value)
            case "algorithms": item.algorithms = try algorithms(value)
            default:
                throw IssuerConfigurationError(
                    "unknown member \"\(member.name)\" (issuer, jwks_url or discovery, audiences, algorithms; or provider, tenant, audiences, jwks_url)"
                )
            }
        }
        if item.discovery {
            // The document names the key URL; a second one, or a preset's, would leave it ambiguous.
            if let provider = item.provider {
                throw IssuerConfigurationError(
                    "\"discovery\": not with provider \(provider) (its preset knows the key URL)")
            }
            if item.jwksURL != nil {
                throw IssuerConfigurationError("\"discovery\": true finds the key URL; drop \"jwks_url\"")
            }
        }
        if let provider = item.provider {
            // The preset decides these; taking them silently or dropping them would both surprise.
            if item.issuer != nil {
                throw IssuerConfigurationError("\"issuer\": provider \(provider) sets its issuers")
            }
            if item.algorithms != nil {
                throw IssuerConfigurationError("\"algorithms\": provider \(provider) sets its algorithms")
            }
            if item.tenant != nil, provider != "microsoft" {
                throw IssuerConfigurationError("\"tenant\": only with provider microsoft")
            }
            // Checked here, not when the keys are registered: a file is refused whole, before any fetch.
            _ = try ProviderPreset.named(provider, audiences: item.audiences, tenant: item.tenant)
        } else {
            if item.tenant != nil { throw IssuerConfigurationError("\"tenant\": only with provider microsoft") }
            guard item.issuer != nil, item.jwksURL != nil || item.discovery else {
                throw IssuerConfigurationError(
                    "needs \"provider\", or \"issuer\" and \"jwks_url\", or \"issuer\" and \"discovery\": true")
            }
        }
        return item
    }

    private static func string(_ name: String, _ value: JSONValue) throws(IssuerConfigurationError) -> String {
        guard let text = value.stringValue else { throw IssuerConfigurationError("\"\(name)\": expected a string") }
        return text
    }

    private static func strings(_ name: String, _ value: JSONValue) throws(IssuerConfigurationError) -> [String] {
        guard let list = value.arrayValue else {
            throw IssuerConfigurationError("\"\(name)\": expected an array of strings")
        }
        var out: [String] = []
        for item in list {
            guard let text = item.stringValue else {
                throw IssuerConfigurationError("\"\(name)\": expected an array of strings")
            }
            out.append(text)
        }
        return out
    }

    private static func algorithms(_ value: JSONValue) throws(IssuerConfigurationError) -> AlgorithmSet {
        var set: AlgorithmSet = []
        for name in try strings("algorithms", value) {
            guard let alg = JWTAlgorithm(rawValue: name) else {
                throw IssuerConfigurationError("\"algorithms\": unknown algorithm \(name)")
            }
            set.insert(AlgorithmSet([alg]))
        }
        guard !set.isEmpty else { throw IssuerConfigurationError("\"algorithms\": name at least one algorithm") }
        return set
    }
}
