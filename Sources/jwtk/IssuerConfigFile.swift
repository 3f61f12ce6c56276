import Foundation
import JWTKernel

/// `--issuer-config FILE`: {"issuers": [entry, ...]}, read with the kernel's strict JSON reader
/// (duplicate member names are refused). Every member is checked: an unknown one, a wrong type or a
/// member that does not fit its entry is an error that names it, as in the C library's configuration.
enum IssuerConfigFile {
    /// One entry: an issuer with its key URL, an issuer with `"discovery": true` (its key URL from its
    /// OpenID Connect discovery document), or a provider preset (keys from the preset's URL, or from
    /// `jwks_url`, a mirror).
    struct Item {
        var issuer: String?
        var jwksURL: String?
        var discovery = false
        var provider: String?
        var tenant: String?
        var audiences: [String] = []
        var algorithms: AlgorithmSet?
    }

    static func load(_ path: String) throws -> [Item] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("\(path): cannot read the issuer configuration")
        }
        do {
            return try parse(Array(data))
        } catch let error as ConfigurationError {
            throw ConfigurationError("\(path): \(error.description)")
        }
    }

    static func parse(_ bytes: [UInt8]) throws -> [Item] {
        let root: JSONValue
        do { root = try JSONValue.parse(bytes) } catch { throw ConfigurationError("not valid JSON: \(error.message)") }
        guard let members = root.objectValue else {
            throw ConfigurationError("expected {\"issuers\": [ ... ]}")
        }
        for member in members where member.name != "issuers" {
            throw ConfigurationError("unknown member \"\(member.name)\" (expected only \"issuers\")")
        }
        guard let list = root["issuers"]?.arrayValue, !list.isEmpty else {
            throw ConfigurationError("expected {\"issuers\": [ ... ]} with at least one issuer")
        }
        return try list.enumerated().map { (i, entry) in
            do { return try item(entry) } catch let error as ConfigurationError {
                throw ConfigurationError("issuer #\(i + 1): \(error.description)")
            }
        }
    }

    private static func item(_ entry: JSONValue) throws -> Item {
        guard let members = entry.objectValue else { throw ConfigurationError("expected an object") }
        var item = Item()
        for member in members {
            let value = member.value
            switch member.name {
            case "issuer": item.issuer = try string(member.name, value)
            case "jwks_url": item.jwksURL = try string(member.name, value)
            case "discovery":
                guard case .bool(let on) = value else {
                    throw ConfigurationError("\"discovery\": expected true or false")
                }
                item.discovery = on
            case "provider": item.provider = try string(member.name, value)
            case "tenant": item.tenant = try string(member.name, value)
            case "audiences": item.audiences = try strings(member.name, value)
            case "algorithms": item.algorithms = try algorithms(value)
            default:
                throw ConfigurationError(
                    "unknown member \"\(member.name)\" (issuer, jwks_url or discovery, audiences, algorithms; or provider, tenant, audiences, jwks_url)"
                )
            }
        }
        if item.discovery {
            // The document names the key URL; a second one, or a preset's, would leave it ambiguous.
            if let provider = item.provider {
                throw ConfigurationError("\"discovery\": not with provider \(provider) (its preset knows the key URL)")
            }
            if item.jwksURL != nil {
                throw ConfigurationError("\"discovery\": true finds the key URL; drop \"jwks_url\"")
            }
        }
        if let provider = item.provider {
            // The preset decides these; taking them silently or dropping them would both surprise.
            if item.issuer != nil { throw ConfigurationError("\"issuer\": provider \(provider) sets its issuers") }
            if item.algorithms != nil {
                throw ConfigurationError("\"algorithms\": provider \(provider) sets its algorithms")
            }
            if item.tenant != nil, provider != "microsoft" {
                throw ConfigurationError("\"tenant\": only with provider microsoft")
            }
        } else {
            if item.tenant != nil { throw ConfigurationError("\"tenant\": only with provider microsoft") }
            guard item.issuer != nil, item.jwksURL != nil || item.discovery else {
                throw ConfigurationError(
                    "needs \"provider\", or \"issuer\" and \"jwks_url\", or \"issuer\" and \"discovery\": true")
            }
        }
        return item
    }

    private static func string(_ name: String, _ value: JSONValue) throws -> String {
        guard let text = value.stringValue else { throw ConfigurationError("\"\(name)\": expected a string") }
        return text
    }

    private static func strings(_ name: String, _ value: JSONValue) throws -> [String] {
        guard let list = value.arrayValue else {
            throw ConfigurationError("\"\(name)\": expected an array of strings")
        }
        return try list.map { item in
            guard let text = item.stringValue else {
                throw ConfigurationError("\"\(name)\": expected an array of strings")
            }
            return text
        }
    }

    private static func algorithms(_ value: JSONValue) throws -> AlgorithmSet {
        var set: AlgorithmSet = []
        for name in try strings("algorithms", value) {
            guard let alg = JWTAlgorithm(rawValue: name) else {
                throw ConfigurationError("\"algorithms\": unknown algorithm \(name)")
            }
            set.insert(AlgorithmSet([alg]))
        }
        guard !set.isEmpty else { throw ConfigurationError("\"algorithms\": name at least one algorithm") }
        return set
    }
}
