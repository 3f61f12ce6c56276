import Foundation
import JWTKernel
import JWTKernelIntegrationTesting
import JWTKernelRemote
import JWTKernelVapor
import XCTVapor

/// The verdict corpus (Tests/JWTKernelTests/Fixtures/gateway/verdicts.json, read from the repository; docs/TESTING.md)
/// through a running Vapor application (`.running`, real HTTP on loopback): one route group per configuration,
/// `/<name>/claims`, behind `JWTKernelAuthenticator` over a `MultiIssuerVerifier` of that configuration's routes on
/// the application's store; the configurations registered with the application's refresher (`app.jwtKernel`,
/// started by its boot), their keys fetched from a loopback HTTP key server (HMAC secrets from their key file:
/// `VerdictCorpus.Configuration.routes(registeringWith:server:)`). The providers with a shortcut
/// (`app.jwtKernel.apple`, `.google`, `.firebase`, `.microsoft`) are also asked through it, at
/// `/<name>/preset`: the configuration's preset (`IssuerEntry.preset()`, the one provider table) mirrored at the
/// same key server (`VerdictCorpus.Configuration.preset(keysAt:)`), `req.jwtKernel.<provider>.verify()`. Checked: the status, the challenge's `error=` and
/// realm, the status name in the body (`{"error":true,"reason":...}`), the claims the route sees; compared by
/// `VerdictAnswer` as front end `vapor`, group `routed`. Every configuration is expressible.
final class VerdictCorpusLiveTests: XCTestCase {
    func testEveryCaseThroughTheAuthenticatorAndTheProviderShortcuts() async throws {
        let corpus = try VerdictCorpus()
        let server = try LoopbackServer()
        let app = try await Application.make(.testing)
        do {
            try await run(corpus, server, app)
        } catch {
            XCTFail("\(error)")
        }
        try await app.asyncShutdown()
        server.stop()
    }

    private func run(_ corpus: VerdictCorpus, _ server: LoopbackServer, _ app: Application) async throws {
        let refresher = app.jwtKernel.refresher
        var presets: Set<String> = []
        for configuration in corpus.configurations {
            let verifier = MultiIssuerVerifier(
                store: app.jwtKernel.store,
                issuers: try configuration.routes(registeringWith: refresher, server: server))
            let group = app.grouped(PathComponent(stringLiteral: configuration.name))
            group.grouped(JWTKernelAuthenticator(verifier: verifier)).get("claims") { req in
                String(decoding: try req.auth.require(VerifiedJWT.self).claimsJSON, as: UTF8.self)
            }
            if let verify = try Self.providerShortcut(configuration, app, server) {
                presets.insert(configuration.name)
                group.get("preset") { req in String(decoding: try verify(req).claimsJSON, as: UTF8.self) }
            }
        }
        XCTAssertEqual(presets, ["apple", "firebase", "google", "microsoft"], "the providers with a shortcut")

        let tester = try app.testable(method: .running(hostname: "127.0.0.1", port: 0))
        let loaded = await eventually(10) {
            corpus.configurations.allSatisfy { app.jwtKernel.store.keys(forIssuer: $0.keyIssuer) != nil }
        }
        XCTAssertTrue(loaded, "every configuration's keys fetched by the application's refresher")
        var problems: [String] = []
        var asked = 0
        for c in corpus.cases {
            for route in presets.contains(c.configuration) ? ["claims", "preset"] : ["claims"] {
                var headers = HTTPHeaders()
                headers.add(name: .authorization, value: "Bearer " + c.token)
                var answer: VerdictAnswer?
                try await tester.test(.GET, "/\(c.configuration)/\(route)", headers: headers) { response async in
                    let body = Array(response.body.readableBytesView)
                    answer = VerdictAnswer(
                        http: Int(response.status.code), challenge: response.headers.first(name: .wwwAuthenticate),
                        statusName: response.status.code == 200 ? "ok" : Self.statusName(body), claimsJSON: body)
                }
                asked += 1
                let found = answer?.mismatches(c, frontEnd: "vapor", groups: ["routed"]) ?? ["no response"]
                if !found.isEmpty {
                    problems.append("\(c.name) [\(c.configuration), \(route)]: \(found.joined(separator: "; "))")
                }
            }
        }
        XCTAssertEqual(problems, [], "every case agrees with the corpus or names a documented difference")
        print("verdicts (vapor): \(asked - problems.count) of \(asked) answers agreed, \(problems.count) differ")
    }

    /// The provider shortcut for `configuration`'s provider, configured with its preset (keys mirrored at
    /// `server`), as the route calls it; nil for a configuration without one (facebook and line have no
    /// shortcut: `app.jwtKernel.configure(presets:)` or the issuer file covers them).
    private static func providerShortcut(
        _ configuration: VerdictCorpus.Configuration, _ app: Application, _ server: LoopbackServer
    ) throws -> (@Sendable (Request) throws -> VerifiedJWT)? {
        guard let preset = try configuration.preset(keysAt: server) else { return nil }
        switch configuration.provider {
        case "apple":
            try app.jwtKernel.apple.configure(preset: preset)
            return { try $0.jwtKernel.apple.verify() }
        case "google":
            try app.jwtKernel.google.configure(preset: preset)
            return { try $0.jwtKernel.google.verify() }
        case "firebase":
            try app.jwtKernel.firebase.configure(preset: preset)
            return { try $0.jwtKernel.firebase.verify() }
        case "microsoft":
            try app.jwtKernel.microsoft.configure(preset: preset)
            return { try $0.jwtKernel.microsoft.verify() }
        default:
            return nil
        }
    }

    /// The status name a refusal's body carries: `{"error":true,"reason":"<name>"}` (`BearerRefusal` through
    /// Vapor's `ErrorMiddleware`).
    static func statusName(_ body: [UInt8]) -> String? {
        (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["reason"] as? String
    }
}
