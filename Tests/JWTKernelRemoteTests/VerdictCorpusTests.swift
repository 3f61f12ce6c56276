import Foundation
import JWTKernelTestSupport
import XCTest

@testable import JWTKernel
@testable import JWTKernelRemote

/// The verdict corpus (Tests/JWTKernelTests/Fixtures/gateway/verdicts.json, docs/TESTING.md) through the Swift
/// API: each configuration parsed by `IssuerEntry` (the one schema), its routes in a `MultiIssuerVerifier` over a
/// `KeyStore` holding its key file (the issuer file's path: routed, like `--issuer-config` and the forward-auth
/// agent), and, for a configuration without a provider, also one `JWTVerifier` with the entry's policy
/// (unrouted, like the C verifier). Every case at the current time: verdict, status name, HTTP status, bearer
/// error, exported claims as a header shows them, compared by JWTKernelTestSupport's `VerdictAnswer`, the one
/// comparison the Hummingbird and Vapor runners use too.
final class VerdictCorpusTests: XCTestCase {
    func testEveryCaseThroughTheSwiftAPI() throws {
        let corpus = try VerdictCorpus()
        var checked = 0
        for configuration in corpus.configurations {
            let entry = try IssuerEntry(parsing: try JSONValue.parse(configuration.config))
            let keys = try JWKSet(json: Array(try Data(contentsOf: configuration.keyFile)))
            XCTAssertTrue(keys.rejected.isEmpty, "\(configuration.name): every key loads")
            let store = KeyStore()
            let routes = try entry.routes()
            for keyIssuer in Set(routes.map(\.keyIssuer)) { store.publish(keys, forIssuer: keyIssuer) }
            var verifiers: [(String, any TokenVerifier, [String])] = [
                ("swift-routed", MultiIssuerVerifier(store: store, issuers: routes), ["routed"])
            ]
            if entry.provider == nil {
                verifiers.append(("swift", JWTVerifier(keys: keys, policy: entry.issuerPolicy()), []))
            }
            for c in corpus.cases(of: configuration) {
                for (frontEnd, verifier, groups) in verifiers {
                    XCTAssertEqual(
                        Self.answer(verifier, c.token).mismatches(c, frontEnd: frontEnd, groups: groups), [],
                        "\(c.name) [\(configuration.name), \(frontEnd)]")
                }
                checked += 1
            }
        }
        XCTAssertEqual(checked, corpus.cases.count, "every case belongs to a configuration")
        XCTAssertGreaterThan(checked, 50)
    }

    /// What the Swift API answers: verdict, status name, HTTP status and bearer error from the core's table,
    /// and the verified claims.
    private static func answer(_ verifier: any TokenVerifier, _ token: String) -> VerdictAnswer {
        do {
            let verified = try verifier.verify(token)
            return VerdictAnswer(
                valid: true, error: .some(nil), http: 200, bearerError: nil, claimsJSON: verified.claimsJSON)
        } catch {
            return VerdictAnswer(
                valid: false, error: .some(error.code.name), http: error.code.httpStatus,
                bearerError: error.code.bearerError)
        }
    }
}
