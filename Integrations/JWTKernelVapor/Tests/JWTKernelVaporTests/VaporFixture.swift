import JWTKernel
import JWTKernelIntegrationTesting
import JWTKernelRemote
import JWTKernelVapor
import XCTVapor

/// A loopback JWKS server and a Vapor application whose `app.jwtKernel` fetches from it: `issuer` (HS256
/// keys the test rotates) as the application's verifier, and `https://down.test`, whose key URL answers
/// 500, so its tokens get 503. The refresher is the application's: started by its boot, stopped by its
/// shutdown.
final class VaporFixture: @unchecked Sendable {
    let server: LoopbackServer
    let issuer = TestIssuer()
    let app: Application
    static let downIssuer = "https://down.test"

    init() async throws {
        server = try LoopbackServer()
        issuer.serveKeys(["k1"], on: server)
        server.serve("/down", json: "{}", status: 500)
        app = try await Application.make(.testing)
        var policy = RefreshPolicy()
        // Short enough for a rotation to be picked up within the test, as the core's refresher tests do.
        policy.unknownKidCooldown = 0.5
        policy.maxIdleWait = 0.2
        app.jwtKernel.use(refresher: KeyRefresher(store: KeyStore(), policy: policy))
        app.jwtKernel.refresher.add(issuer: issuer.issuer, source: try HTTPKeySource(url: server.url(issuer.path)))
        app.jwtKernel.refresher.add(issuer: Self.downIssuer, source: try HTTPKeySource(url: server.url("/down")))
        try app.jwtKernel.configure(issuers: [
            IssuerConfiguration(issuer: issuer.issuer, policy: ClaimsPolicy(audiences: [issuer.audience])),
            IssuerConfiguration(issuer: Self.downIssuer, policy: ClaimsPolicy(audiences: [issuer.audience])),
        ])
    }

    func shutdown() async throws {
        if !app.didShutdown { try await app.asyncShutdown() }
        server.stop()
    }

    /// Boots the application for real (its lifecycle starts the refresher) and waits for the first keys.
    func running() async throws -> any XCTApplicationTester {
        let tester = try app.testable(method: .running(hostname: "127.0.0.1", port: 0))
        let loaded = await eventually(5) { self.app.jwtKernel.store.keys(forIssuer: self.issuer.issuer) != nil }
        XCTAssertTrue(loaded, "the refresher, started by the application's boot, fetched the keys")
        return tester
    }

    func token(
        kid: String = "k1", subject: String = "user-1", expiresIn: Int = 600, audience: String? = nil,
        issuer: String? = nil
    ) -> String {
        self.issuer.token(
            on: server, kid: kid, subject: subject, expiresIn: expiresIn, audience: audience, issuer: issuer)
    }
}

/// One request's status, challenge and body.
struct Answer: Equatable, CustomStringConvertible {
    let status: UInt
    let challenge: String?
    let body: String
    var description: String { "\(status) \(challenge ?? "-") \(body)" }
}

extension XCTApplicationTester {
    func get(_ path: String, authorization: String? = nil) async throws -> Answer {
        var headers = HTTPHeaders()
        if let authorization { headers.add(name: .authorization, value: authorization) }
        var answer: Answer?
        try await test(.GET, path, headers: headers) { response async in
            answer = Answer(
                status: response.status.code, challenge: response.headers.first(name: .wwwAuthenticate),
                body: response.body.string)
        }
        return answer!
    }

    func get(_ path: String, bearer token: String) async throws -> Answer {
        try await get(path, authorization: "Bearer " + token)
    }
}
