import Foundation
import JWTKernelTestSupport
import XCTest

@testable import JWTKernel
@testable import JWTKernelRemote

/// Real provider tokens (Fixtures/real-tokens) verify through keys fetched from
/// the loopback server in that provider's own format: a JWKS, or for Firebase
/// the `{kid: PEM certificate}` map.
final class RealProviderKeysTests: XCTestCase {
    struct RealToken {
        let name: String, provider: String, token: String, iss: String, aud: String, iat: Int64
        let jwks: [String: Any]
    }

    static func load() throws -> [RealToken] {
        let root = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!.appendingPathComponent("real-tokens")
        let names = try FileManager.default.contentsOfDirectory(atPath: root.path).filter { !$0.hasSuffix(".md") }
            .sorted()
        return try names.map { name in
            let dir = root.appendingPathComponent(name)
            let meta = try XCTUnwrap(
                try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("meta.json")))
                    as? [String: Any])
            let jwks = try XCTUnwrap(
                try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("jwks.json")))
                    as? [String: Any])
            let token = String(decoding: try Data(contentsOf: dir.appendingPathComponent("token.txt")), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            return RealToken(
                name: name, provider: meta["provider"] as! String, token: token, iss: meta["iss"] as! String,
                aud: meta["aud"] as! String, iat: (meta["iat"] as! NSNumber).int64Value, jwks: jwks)
        }
    }

    /// Firebase publishes `{kid: PEM certificate}`; built here from the fixture's x5c.
    static func pemMap(_ jwks: [String: Any]) throws -> String {
        var map: [String: String] = [:]
        for key in try XCTUnwrap(jwks["keys"] as? [[String: Any]]) {
            let der = try XCTUnwrap((key["x5c"] as? [String])?.first)
            var lines: [Substring] = []
            var rest = Substring(der)
            while !rest.isEmpty { lines.append(rest.prefix(64)); rest = rest.dropFirst(64) }
            map[key["kid"] as! String] =
                "-----BEGIN CERTIFICATE-----\n" + lines.joined(separator: "\n") + "\n-----END CERTIFICATE-----\n"
        }
        return String(decoding: try JSONSerialization.data(withJSONObject: map), as: UTF8.self)
    }

    func testRealTokensVerifyThroughKeysServedInTheProvidersFormat() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let tokens = try Self.load()
        XCTAssertGreaterThanOrEqual(tokens.count, 5)
        for t in tokens {
            let path = "/\(t.name)/keys"
            let body =
                t.provider == "firebase"
                ? try Self.pemMap(t.jwks)
                : String(decoding: try JSONSerialization.data(withJSONObject: t.jwks), as: UTF8.self)
            server.serve(
                path, json: body, headers: ["Cache-Control": "public, max-age=19000, must-revalidate, no-transform"])
            let store = KeyStore()
            let refresher = KeyRefresher(store: store, clock: ManualClock())
            refresher.add(issuer: t.iss, source: try HTTPKeySource(url: server.url(path)))
            XCTAssertEqual(refresher.refreshDue(), 1, t.name)
            XCTAssertEqual(refresher.stats(issuer: t.iss)?.keysLoaded, (t.jwks["keys"] as? [Any])?.count, t.name)
            let verifier = MultiIssuerVerifier(
                store: store,
                issuers: [
                    IssuerConfiguration(issuer: t.iss, policy: ClaimsPolicy(audiences: [t.aud])),
                    IssuerConfiguration(issuer: "https://other.example"),
                ], clock: FixedClock(t.iat + 1))
            XCTAssertNil(
                verifier.check(t.token), "\(t.name) (\(t.provider), \(t.provider == "firebase" ? "PEM map" : "JWKS"))")
            XCTAssertEqual(
                verifier.check(KeyKitLite.flippingLastSignatureCharacter(t.token))?.code, .badSignature, t.name)
        }
        XCTAssertTrue(tokens.contains { $0.provider == "firebase" }, "the {kid: PEM} format is exercised")
    }
}

enum KeyKitLite {
    /// The token with its signature's first character changed (still canonical base64url).
    static func flippingLastSignatureCharacter(_ token: String) -> String {
        var parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let first = parts[2].first!
        parts[2] = (first == "A" ? "B" : "A") + parts[2].dropFirst()
        return parts.joined(separator: ".")
    }
}
