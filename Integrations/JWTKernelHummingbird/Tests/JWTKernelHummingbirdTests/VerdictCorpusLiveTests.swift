import Foundation
import Hummingbird
import HummingbirdAuth
import HummingbirdTesting
import JWTKernel
import JWTKernelHummingbird
import JWTKernelIntegrationTesting
import JWTKernelRemote
import JWTKernelServer
import XCTest

/// The verdict corpus (Tests/JWTKernelTests/Fixtures/gateway/verdicts.json, read from the repository; docs/TESTING.md)
/// through a running Hummingbird application: one route group per configuration, `/<name>/claims`, behind
/// `JWTKernelAuthenticator` (realm `api`) over a `MultiIssuerVerifier` of that configuration's routes, and for each
/// provider also `/<name>/preset`, behind the authenticator's preset initializer (`JWTKernelAuthenticator(presets:
/// refresher:)`, the preset from `VerdictCorpus.Configuration.preset(keysAt:)`). The configurations are registered
/// with one `KeyRefresher` run as the application's `KeyRefresherService`, their keys fetched from a loopback HTTP
/// key server (HMAC secrets from their key file: `VerdictCorpus.Configuration.routes(registeringWith:server:)`).
/// Every case is a real HTTP request (`.live`): the status, the challenge's `error=` and realm, the status name in
/// the body (`{"error":{"message":...}}`), and for a valid token the claims the identity hands the route, compared
/// by `VerdictAnswer` as front end `hummingbird`, group `routed` (it routes by issuer). Every configuration is
/// expressible.
final class VerdictCorpusLiveTests: XCTestCase {
    typealias Context = BasicAuthRequestContext<VerifiedJWT>

    func testEveryCaseThroughTheAuthenticator() async throws {
        let corpus = try VerdictCorpus()
        let server = try LoopbackServer()
        defer { server.stop() }
        let refresher = KeyRefresher(store: KeyStore())
        let router = Router(context: Context.self)
        var presets: Set<String> = []
        for configuration in corpus.configurations {
            let verifier = MultiIssuerVerifier(
                store: refresher.store, issuers: try configuration.routes(registeringWith: refresher, server: server))
            let group = router.group(RouterPath(configuration.name))
            group.group("claims").add(middleware: JWTKernelAuthenticator(verifier: verifier, realm: "api"))
                .get(use: Self.claims)
            if let preset = try configuration.preset(keysAt: server) {
                presets.insert(configuration.name)
                group.group("preset")
                    .add(middleware: try JWTKernelAuthenticator<Context>(presets: [preset], refresher: refresher))
                    .get(use: Self.claims)
            }
        }
        XCTAssertEqual(presets, Set(ProviderPreset.names), "every provider preset")
        let withPreset = presets
        var app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        app.addServices(KeyRefresherService(refresher: refresher))

        try await app.test(.live) { client in
            let loaded = await eventually(10) {
                corpus.configurations.allSatisfy { refresher.store.keys(forIssuer: $0.keyIssuer) != nil }
            }
            XCTAssertTrue(loaded, "every configuration's keys fetched by the application's refresher")
            var problems: [String] = []
            var asked = 0
            for c in corpus.cases {
                for route in withPreset.contains(c.configuration) ? ["claims", "preset"] : ["claims"] {
                    var headers = HTTPFields()
                    headers[.authorization] = "Bearer " + c.token
                    let uri = "/\(c.configuration)/\(route)"
                    let answer = try await client.execute(uri: uri, method: .get, headers: headers) { response in
                        let body = Array(response.body.readableBytesView)
                        return VerdictAnswer(
                            http: Int(response.status.code), challenge: response.headers[.wwwAuthenticate],
                            statusName: response.status.code == 200 ? "ok" : Self.statusName(body), claimsJSON: body)
                    }
                    asked += 1
                    let found = answer.mismatches(c, frontEnd: "hummingbird", groups: ["routed"])
                    if !found.isEmpty {
                        problems.append("\(c.name) [\(c.configuration), \(route)]: \(found.joined(separator: "; "))")
                    }
                }
            }
            XCTAssertEqual(problems, [], "every case agrees with the corpus or names a documented difference")
            print(
                "verdicts (hummingbird): \(asked - problems.count) of \(asked) answers agreed, \(problems.count) differ"
            )
        }
    }

    /// The application's view of the identity: the verified claims, as JSON.
    @Sendable static func claims(_ request: Request, _ context: Context) throws -> String {
        String(decoding: try context.requireIdentity().claimsJSON, as: UTF8.self)
    }

    /// The status name a refusal's body carries: `{"error":{"message":"<name>"}}` (`BearerError`).
    static func statusName(_ body: [UInt8]) -> String? {
        let json = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
        return (json?["error"] as? [String: Any])?["message"] as? String
    }
}
