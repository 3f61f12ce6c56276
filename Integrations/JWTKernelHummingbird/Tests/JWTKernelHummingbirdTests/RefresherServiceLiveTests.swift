import Hummingbird
import HummingbirdAuth
import HummingbirdTesting
import JWTKernel
import JWTKernelHummingbird
import JWTKernelIntegrationTesting
import JWTKernelRemote
import JWTKernelServer
import XCTest

/// The refresher as one of the application's services (JWTKernelServer's `KeyRefresherService`): started
/// when the application runs, stopped by its graceful shutdown; the authenticator counts its results in the
/// `VerificationCounters` the service reports.
final class RefresherServiceLiveTests: XCTestCase {
    func testRefresherRunsWithTheApplicationAndResultsAreCounted() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let issuer = TestIssuer()
        issuer.serveKeys(["k1"], on: server)
        let refresher = KeyRefresher(store: KeyStore())
        refresher.add(issuer: issuer.issuer, source: try HTTPKeySource(url: server.url(issuer.path)))
        let verifier = MultiIssuerVerifier(
            store: refresher.store,
            issuers: [IssuerConfiguration(issuer: issuer.issuer, policy: ClaimsPolicy(audiences: [issuer.audience]))])
        let counters = VerificationCounters(for: verifier)

        let router = Router(context: BasicAuthRequestContext<VerifiedJWT>.self)
        router.add(middleware: JWTKernelAuthenticator(verifier: verifier, verificationCounters: counters))
            .get("me") { _, context in try context.requireIdentity().subject ?? "" }
        var app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        app.addServices(KeyRefresherService(refresher: refresher, verificationCounters: counters))
        XCTAssertFalse(refresher.isRunning, "nothing runs before the application does")

        try await app.test(.live) { client in
            let running = await eventually(5) { refresher.isRunning }
            XCTAssertTrue(running, "started by the application's service group")
            let loaded = await eventually(5) { refresher.store.keys(forIssuer: issuer.issuer) != nil }
            XCTAssertTrue(loaded)
            let valid = try await client.get("/me", bearer: issuer.token(on: server, kid: "k1"))
            XCTAssertEqual(valid, Answer(status: 200, challenge: nil, body: "user-1"))
            let expired = try await client.get("/me", bearer: issuer.token(on: server, kid: "k1", expiresIn: -3600))
            XCTAssertEqual(expired.status, 401)
        }
        let stopped = await eventually(5) { !refresher.isRunning }
        XCTAssertTrue(stopped, "stopped by the application's graceful shutdown")

        let counts = Dictionary(
            counters.snapshot().map { ("\($0.issuer) \($0.result)", $0.count) }, uniquingKeysWith: +)
        XCTAssertEqual(counts["\(issuer.issuer) ok"], 1)
        XCTAssertEqual(counts["\(VerificationCounters.rejectedIssuer) expired"], 1)
    }
}
