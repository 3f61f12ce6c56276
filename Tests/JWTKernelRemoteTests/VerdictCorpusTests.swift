import Foundation
import XCTest

@testable import JWTKernel
@testable import JWTKernelRemote

/// The verdict corpus (Tests/JWTKernelTests/Fixtures/gateway/verdicts.json, docs/TESTING.md) through the Swift
/// API: each configuration parsed by `IssuerEntry` (the one schema), its routes in a `MultiIssuerVerifier` over a
/// `KeyStore` holding its key file (the issuer file's path: routed, like `--issuer-config` and the forward-auth
/// agent), and, for a configuration without a provider, also one `JWTVerifier` with the entry's policy
/// (unrouted, like the C verifier). Every case at the current time: verdict, status name, HTTP status, bearer
/// error, exported claims as a header shows them.
final class VerdictCorpusTests: XCTestCase {
    private static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("JWTKernelTests/Fixtures/gateway")

    func testEveryCaseThroughTheSwiftAPI() throws {
        let doc = try XCTUnwrap(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: Self.fixtures.appendingPathComponent("verdicts.json"))) as? [String: Any])
        let configurations = try XCTUnwrap(doc["configurations"] as? [String: [String: Any]])
        let cases = try XCTUnwrap(doc["cases"] as? [[String: Any]])
        var checked = 0
        for (name, configuration) in configurations.sorted(by: { $0.key < $1.key }) {
            let configText = try JSONSerialization.data(withJSONObject: try XCTUnwrap(configuration["config"]))
            let entry = try IssuerEntry(parsing: try JSONValue.parse(Array(configText)))
            let keyFile = Self.fixtures.appendingPathComponent(try XCTUnwrap(configuration["keys"] as? String))
            let keys = try JWKSet(json: Array(try Data(contentsOf: keyFile)))
            XCTAssertTrue(keys.rejected.isEmpty, "\(name): every key loads")
            let store = KeyStore()
            let routes = try entry.routes()
            for keyIssuer in Set(routes.map(\.keyIssuer)) { store.publish(keys, forIssuer: keyIssuer) }
            var verifiers: [(String, any TokenVerifier, Bool)] = [
                ("swift-routed", MultiIssuerVerifier(store: store, issuers: routes), true)
            ]
            if entry.provider == nil {
                verifiers.append(("swift", JWTVerifier(keys: keys, policy: entry.issuerPolicy()), false))
            }
            for c in cases where c["configuration"] as? String == name {
                for (frontEnd, verifier, routed) in verifiers {
                    let answer = Self.answer(verifier, try XCTUnwrap(c["token"] as? String), claims: c["claims"])
                    XCTAssertEqual(
                        Self.mismatches(c, answer, frontEnd: frontEnd, routed: routed), [],
                        "\(c["name"]!) [\(name), \(frontEnd)]")
                }
                checked += 1
            }
        }
        XCTAssertEqual(checked, cases.count, "every case belongs to a configuration")
        XCTAssertGreaterThan(checked, 50)
    }

    /// What a front end answers: verdict, status name, HTTP status, bearer error, and the claims the case lists.
    private static func answer(_ verifier: any TokenVerifier, _ token: String, claims: Any?) -> [String: Any] {
        do {
            let verified = try verifier.verify(token)
            let json = (try? JSONSerialization.jsonObject(with: Data(verified.claimsJSON))) as? [String: Any] ?? [:]
            var exported: [String: String] = [:]
            for name in ((claims as? [String: Any]) ?? [:]).keys {
                exported[name] = headerValue(claim(json, name))
            }
            return ["valid": true, "error": NSNull(), "http": 200, "bearer_error": NSNull(), "claims": exported]
        } catch {
            return [
                "valid": false, "error": error.code.name, "http": error.code.httpStatus,
                "bearer_error": error.code.bearerError ?? NSNull(),
            ]
        }
    }

    /// The corpus's expectation with this front end's documented difference applied (verdicts.py's rule: a
    /// differs entry naming the front end or its group, "routed" or else "unrouted"; the Swift key store is
    /// not "pushed-per-issuer": a preset's routes read its key issuer's keys).
    private static func mismatches(
        _ c: [String: Any], _ answer: [String: Any], frontEnd: String, routed: Bool
    )
        -> [String]
    {
        var want: [String: Any] = [:]
        for k in ["valid", "error", "http", "bearer_error"] { want[k] = c[k] ?? NSNull() }
        let names: Set = [frontEnd, routed ? "routed" : "unrouted"]
        for d in (c["differs"] as? [[String: Any]]) ?? [] {
            guard let who = d["front_end"] as? String, names.contains(who) else { continue }
            for k in ["valid", "error", "http", "bearer_error"] where d[k] != nil { want[k] = d[k] }
        }
        var out: [String] = []
        // Compared by type: JSONSerialization's booleans and numbers are NSNumbers, absent values NSNull.
        let same = [
            "valid": (want["valid"] as? Bool) == (answer["valid"] as? Bool),
            "error": (want["error"] as? String) == (answer["error"] as? String),
            "http": (want["http"] as? Int) == (answer["http"] as? Int),
            "bearer_error": (want["bearer_error"] as? String) == (answer["bearer_error"] as? String),
        ]
        for (k, equal) in same.sorted(by: { $0.key < $1.key }) where !equal {
            out.append("\(k): \(answer[k]!), expected \(want[k]!)")
        }
        if let exported = answer["claims"] as? [String: String] {
            for (name, value) in (c["claims"] as? [String: String]) ?? [:] where exported[name] != value {
                out.append("claim \(name): \(exported[name] ?? "nil"), expected \(value)")
            }
        }
        return out
    }

    /// A claim by name, or by RFC 6901 pointer when it starts with "/".
    private static func claim(_ claims: [String: Any], _ name: String) -> Any? {
        guard name.hasPrefix("/") else { return claims[name] }
        var node: Any? = claims
        for step in name.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            let key = step.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            node = (node as? [String: Any])?[key]
        }
        return node
    }

    /// As a header shows a claim (jwtk_claim_at with JWTK_AT_JOIN): a string as it is, an array of strings
    /// joined by ",".
    private static func headerValue(_ value: Any?) -> String? {
        if let s = value as? String { return s }
        if let a = value as? [String] { return a.joined(separator: ",") }
        return value.map { "\($0)" }
    }
}
