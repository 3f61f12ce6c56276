import Foundation

/// The verdict corpus (Tests/JWTKernelTests/Fixtures/gateway/verdicts.json, docs/TESTING.md) for the Swift
/// runners: the Swift API's (JWTKernelRemoteTests) and the Hummingbird and Vapor integrations' (through
/// JWTKernelIntegrationTesting, which re-exports this module). Read from the repository by path, never copied,
/// so every runner holds every front end to the same file. Each front end's answer is compared in one place,
/// `VerdictAnswer.mismatches`, the Swift twin of IntegrationTests/verdicts/verdicts.py's `mismatches`.
public struct VerdictCorpus: Sendable {
    /// Tests/JWTKernelTests/Fixtures/gateway, found from this file's path.
    public static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("JWTKernelTests/Fixtures/gateway")

    /// Sorted by name.
    public let configurations: [Configuration]
    /// In the file's order.
    public let cases: [Case]

    /// One configuration: its `config` in the one issuer-set schema, and where its keys are.
    public struct Configuration: Sendable {
        public let name: String
        /// The JSON text of `config` (an issuer file entry, a C verifier config).
        public let config: [UInt8]
        /// The key file, relative to `VerdictCorpus.directory` (`keys/public.jwks.json`).
        public let keys: String
        /// The issuer its keys are loaded under when pushed (a preset's key issuer).
        public let keyIssuer: String
        /// HMAC secrets: never served over HTTP, so a pulling front end loads the file.
        public let secret: Bool
        /// The `provider` member, if any.
        public let provider: String?

        public var keyFile: URL { VerdictCorpus.directory.appendingPathComponent(keys) }

        /// An issuer configuration file (`{"issuers": [entry]}`) of this configuration as written, pulling its
        /// keys from `jwksURL`: what `jwtk verify --issuer-config` and the forward-auth agent read.
        public func issuerFile(jwksURL: String) throws -> [UInt8] {
            var entry = try CorpusJSON.object(Data(config))
            entry["jwks_url"] = jwksURL
            return Array(try JSONSerialization.data(withJSONObject: ["issuers": [entry]]))
        }
    }

    /// One token under one configuration and what every front end owes for it.
    public struct Case: Sendable {
        public let name: String
        public let configuration: String
        public let token: String
        public let expected: Verdict
        /// Exported claims: a claim name or an RFC 6901 pointer -> the value as a header shows it.
        public let claims: [String: String]
        public let differs: [Difference]
    }

    /// A verdict as HTTP and the status table tell it.
    public struct Verdict: Sendable, Equatable {
        public var valid: Bool
        /// The status name (docs/ERRORS.md), nil when valid.
        public var error: String?
        public var http: Int
        /// The challenge's `error=`, nil for none.
        public var bearerError: String?
    }

    /// A documented difference: what `frontEnd` (one front end, or a group: `routed`, `unrouted`,
    /// `pushed-per-issuer`) answers instead, and why. A member absent from the entry keeps the corpus's value.
    public struct Difference: Sendable {
        public let frontEnd: String
        public let valid: Bool?
        public let error: String??
        public let http: Int?
        public let bearerError: String??
        public let reason: String
    }

    public init() throws {
        let doc = try CorpusJSON.object(Data(contentsOf: Self.directory.appendingPathComponent("verdicts.json")))
        let configs = try CorpusJSON.cast(doc["configurations"], [String: [String: Any]].self, "configurations")
        configurations = try configs.keys.sorted().map { name in
            let c = configs[name]!
            let config = try CorpusJSON.cast(c["config"], [String: Any].self, "\(name).config")
            return Configuration(
                name: name, config: Array(try JSONSerialization.data(withJSONObject: config, options: [.sortedKeys])),
                keys: try CorpusJSON.cast(c["keys"], String.self, "\(name).keys"),
                keyIssuer: try CorpusJSON.cast(c["key_issuer"], String.self, "\(name).key_issuer"),
                secret: c["secret"] as? Bool ?? false, provider: config["provider"] as? String)
        }
        cases = try CorpusJSON.cast(doc["cases"], [[String: Any]].self, "cases").map { c in
            let name = try CorpusJSON.cast(c["name"], String.self, "a case's name")
            return Case(
                name: name,
                configuration: try CorpusJSON.cast(c["configuration"], String.self, "\(name).configuration"),
                token: try CorpusJSON.cast(c["token"], String.self, "\(name).token"),
                expected: Verdict(
                    valid: try CorpusJSON.cast(c["valid"], Bool.self, "\(name).valid"), error: c["error"] as? String,
                    http: try CorpusJSON.cast(c["http"], Int.self, "\(name).http"),
                    bearerError: c["bearer_error"] as? String),
                claims: c["claims"] as? [String: String] ?? [:],
                differs: ((c["differs"] as? [[String: Any]]) ?? []).map { d in
                    Difference(
                        frontEnd: d["front_end"] as? String ?? "", valid: d["valid"] as? Bool,
                        error: d["error"].map { $0 as? String }, http: d["http"] as? Int,
                        bearerError: d["bearer_error"].map { $0 as? String }, reason: d["reason"] as? String ?? "")
                })
        }
    }

    public func cases(of configuration: Configuration) -> [Case] {
        cases.filter { $0.configuration == configuration.name }
    }
}

extension VerdictCorpus.Case {
    /// The verdict `frontEnd` owes: the corpus's, or its documented difference, an entry naming the front end
    /// or one of its `groups` ("routed": routes by issuer, keys per issuer; else "unrouted": one key set for
    /// any issuer; "pushed-per-issuer"). verdicts.py's `expected`, the same rule.
    public func expected(frontEnd: String, groups: [String]) -> VerdictCorpus.Verdict {
        var want = expected
        let names = Set([frontEnd] + groups + (groups.contains("routed") ? [] : ["unrouted"]))
        for d in differs where names.contains(d.frontEnd) {
            if let v = d.valid { want.valid = v }
            if let e = d.error { want.error = e }
            if let h = d.http { want.http = h }
            if let b = d.bearerError { want.bearerError = b }
        }
        return want
    }
}

/// Foundation's JSON, the corpus's reader (the corpus is test input, read by an implementation other than the
/// kernel's).
enum CorpusJSON {
    static func object(_ data: Data) throws -> [String: Any] {
        try cast(
            try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]), [String: Any].self,
            "a JSON object")
    }

    static func cast<T>(_ value: Any?, _ type: T.Type, _ what: String) throws -> T {
        guard let typed = value as? T else {
            throw NSError(
                domain: "VerdictCorpus", code: 1, userInfo: [NSLocalizedDescriptionKey: "verdicts.json: \(what)"])
        }
        return typed
    }

    /// Compact JSON text of a value (a number, a bool, an object).
    static func text(_ value: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys])
        else { return "\(value)" }
        return String(decoding: data, as: UTF8.self)
    }
}
