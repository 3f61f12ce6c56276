import JWTKernel
import JWTKernelIntegrationTesting
import JWTKernelVapor
import XCTVapor

/// `req.jwtKernel.verify()` and the authenticator, each verdict through a running server: status, RFC 6750
/// challenge, and the code in the body (`BearerRefusal`'s reason through `ErrorMiddleware`).
final class VerifyLiveTests: XCTestCase {
    var fixture: VaporFixture!

    override func setUp() async throws { fixture = try await VaporFixture() }
    override func tearDown() async throws { try await fixture.shutdown() }

    static let invalid = #"Bearer realm="api", error="invalid_token""#

    func routes() {
        let app = fixture.app
        app.get("verify") { req in try req.jwtKernel.verify().subject ?? "" }
        app.grouped(app.jwtKernel.authenticator()).get("auth") { req in
            try req.auth.require(VerifiedJWT.self).subject ?? ""
        }
        // A verifier whose policy also requires `sub` to be "admin": an unmet claim requirement.
        let admins = MultiIssuerVerifier(
            store: app.jwtKernel.store,
            issuers: [
                IssuerConfiguration(
                    issuer: fixture.issuer.issuer,
                    policy: ClaimsPolicy(
                        audiences: [fixture.issuer.audience],
                        claimRequirements: [try! ClaimRequirement("/sub", .equals("admin"))]))
            ])
        app.grouped(JWTKernelAuthenticator(verifier: admins)).get("admin") { req in
            try req.auth.require(VerifiedJWT.self).subject ?? ""
        }
        app.grouped(app.jwtKernel.authenticator(tokenRequired: false)).get("open") { req in
            req.auth.get(VerifiedJWT.self)?.subject ?? "anonymous"
        }
    }

    func testVerdictsThroughHelperAndAuthenticator() async throws {
        routes()
        let f = fixture!
        let client = try await f.running()
        for path in ["/verify", "/auth"] {
            let valid = try await client.get(path, bearer: f.token())
            XCTAssertEqual(valid, Answer(status: 200, challenge: nil, body: "user-1"), path)

            let expired = try await client.get(path, bearer: f.token(expiresIn: -3600))
            XCTAssertEqual(expired.status, 401, path)
            XCTAssertEqual(expired.challenge, Self.invalid, path)
            XCTAssertTrue(expired.body.contains(#""reason":"expired""#), expired.body)

            let audience = try await client.get(path, bearer: f.token(audience: "another-app"))
            XCTAssertEqual(audience.status, 401, "a wrong audience is 401 invalid_token, as jwtk_status_http says")
            XCTAssertEqual(audience.challenge, Self.invalid, path)
            XCTAssertTrue(audience.body.contains(#""reason":"bad_audience""#), audience.body)

            let unknown = try await client.get(path, bearer: f.token(issuer: "https://elsewhere.test"))
            XCTAssertEqual(unknown.status, 401, path)
            XCTAssertEqual(unknown.challenge, Self.invalid, path)
            XCTAssertTrue(unknown.body.contains(#""reason":"unknown_issuer""#), unknown.body)

            let down = try await client.get(path, bearer: f.token(issuer: VaporFixture.downIssuer))
            XCTAssertEqual(down.status, 503, "an issuer whose keys never loaded")
            XCTAssertNil(down.challenge, "a 503 judges no token: no challenge")

            let none = try await client.get(path)
            XCTAssertEqual(none.status, 401, path)
            XCTAssertEqual(none.challenge, #"Bearer realm="api""#, "no error= without a token (RFC 6750 3.1)")
        }
        let notAdmin = try await client.get("/admin", bearer: f.token())
        XCTAssertEqual(notAdmin.status, 403, "an unmet claim requirement: a genuine token without the privilege")
        XCTAssertEqual(notAdmin.challenge, #"Bearer realm="api", error="insufficient_scope""#)
        XCTAssertTrue(notAdmin.body.contains(#""reason":"claim_requirement_failed""#), notAdmin.body)

        let anonymous = try await client.get("/open")
        XCTAssertEqual(anonymous, Answer(status: 200, challenge: nil, body: "anonymous"))
        let bad = try await client.get("/open", bearer: f.token(expiresIn: -3600))
        XCTAssertEqual(bad.status, 401, "a bad token is refused even where a token is optional")
    }

    /// The refresher's thread lives with the application: started by its boot, stopped by its shutdown.
    func testRefresherFollowsTheApplicationsLifecycle() async throws {
        let f = fixture!
        // Held here: the application's storage (and so app.jwtKernel) is cleared by its shutdown.
        let refresher = f.app.jwtKernel.refresher
        XCTAssertFalse(refresher.isRunning, "nothing runs before the application boots")
        _ = try await f.running()
        XCTAssertTrue(refresher.isRunning)
        try await f.app.asyncShutdown()
        XCTAssertFalse(refresher.isRunning, "stopped by the application's shutdown")
    }
}
