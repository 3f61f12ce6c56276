public import JWTKernel

/// The issuer configuration file shared by `jwtk verify --issuer-config` and `jwtk-forward-auth`:
/// `{"issuers": [entry, ...]}`, read with the kernel's strict JSON reader (duplicate member names are
/// refused). Each entry has the members of `IssuerEntry`, the schema the C library's verifier config
/// shares, so a configuration moves between the CLI, the agent, C and the gateways unchanged. What is
/// particular to a file: an entry must name where its keys come from (a file has no call that loads them).
public struct IssuerConfigurationFile: Sendable {
    public var entries: [IssuerEntry]

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
        var entries: [IssuerEntry] = []
        for (i, value) in list.enumerated() {
            do { entries.append(try Self.entry(value)) } catch {
                throw IssuerConfigurationError("issuer #\(i + 1): \(error.description)")
            }
        }
        self.entries = entries
    }

    private static func entry(_ value: JSONValue) throws(IssuerConfigurationError) -> IssuerEntry {
        let entry = try IssuerEntry(parsing: value) { (name, _) throws(IssuerConfigurationError) in
            if ["max_token_size", "cache", "batch_threads", "token_type"].contains(name) {
                throw IssuerConfigurationError(
                    "\"\(name)\": a member of the C library's verifier config, not of an issuer file entry")
            }
            return false
        }
        if entry.keys.pull == false {
            throw IssuerConfigurationError("\"pull\": false: an issuer file's entries always fetch their keys")
        }
        guard
            entry.provider != nil
                || (!entry.issuers.isEmpty && (entry.keys.jwksURL != nil || entry.keys.discovery == true))
        else {
            throw IssuerConfigurationError(
                "needs \"provider\", or \"issuer\" and \"jwks_url\", or \"issuer\" and \"discovery\": true")
        }
        return entry
    }
}
