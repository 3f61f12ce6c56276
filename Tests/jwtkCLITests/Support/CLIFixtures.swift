import Foundation
import XCTest

/// The key files and tokens the CLI tests use, and the common `verify` arguments.
enum CLIFixtures {
    static let now = String(AttackSuite.now)
    static var publicJWKS: String { AttackSuite.path("jwks.json") }
    static var hmacJWKS: String { AttackSuite.path("hmac-jwks.json") }
    /// The library's default token size limit, which `jwtk verify` documents as its own.
    static let defaultMaxTokenSize = 16 * 1024

    /// A key file of this target's own (Fixtures/).
    static func keyFile(_ name: String) -> String {
        Bundle.module.url(forResource: "Fixtures", withExtension: nil)!.appendingPathComponent(name).path
    }

    // Safety: XCTest runs test methods one at a time, so the cache is never touched concurrently.
    nonisolated(unsafe) private static var cache: [String: AttackCase]?

    static func byName() throws -> [String: AttackCase] {
        if let cache { return cache }
        let all = Dictionary(uniqueKeysWithValues: try AttackSuite.cases().map { ($0.name, $0) })
        cache = all
        return all
    }

    static func token(_ name: String) throws -> String {
        guard let c = try byName()[name] else { throw XCTSkip("fixture case \(name) is missing") }
        return c.token
    }

    /// An HS256 token over `claims` (JSON text), signed with the attack suite's `hmac-256` secret.
    static func mintHS256(claims: String) throws -> String {
        let set =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: hmacJWKS))) as! [String: Any]
        let key = (set["keys"] as! [[String: Any]]).first { $0["kid"] as? String == "hmac-256" }!
        let secret = try XCTUnwrap(Base64URLText.decode(key["k"] as! String))
        return HS256Signer.token(header: #"{"alg":"HS256","kid":"hmac-256"}"#, claims: claims, key: Array(secret))
    }

    /// `verify` with the attack suite's default policy: its key set, issuer, audience and clock.
    static func verifyArgs(jwks: [String]? = nil, policy: Bool = true) -> [String] {
        var args = ["verify"]
        for path in jwks ?? [publicJWKS] { args += ["--jwks", path] }
        if policy { args += ["--iss", AttackSuite.issuer, "--aud", AttackSuite.audience] }
        args += ["--now", now]
        return args
    }
}
