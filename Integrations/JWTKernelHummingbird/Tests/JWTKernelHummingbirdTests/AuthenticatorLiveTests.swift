import Hummingbird
import HummingbirdAuth
import HummingbirdTesting
import JWTKernel
import JWTKernelHummingbird
import JWTKernelIntegrationTesting
import XCTest

/// The authenticator's verdicts, each through a running server (`.live`): status, RFC 6750 challenge and
/// the code in the body.
final class AuthenticatorLiveTests: XCTestCase {
    var fixture: LiveFixture!

    override func setUp() async throws { fixture = try await LiveFixture() }
    override func tearDown() async throws { fixture.stop() }

    /// `/api/me` behind the authenticator with the verified token as identity; `/open/me` the same with
    /// `tokenRequired: false`.
    func application() -> some ApplicationProtocol {
        let router = Router(context: BasicAuthRequestContext<VerifiedJWT>.self)
        router.group("api")
            .add(middleware: JWTKernelAuthenticator(verifier: fixture.verifier, realm: "api"))
            .get("me") { _, context in try context.requireIdentity().subject ?? "" }
        // A verifier whose policy also requires `sub` to be "admin": an unmet claim requirement.
        let admins = MultiIssuerVerifier(
            store: fixture.refresher.store,
            issuers: [
                IssuerConfiguration(
                    issuer: fixture.issuer.issuer,
                    policy: ClaimsPolicy(
                        audiences: [fixture.issuer.audience],
                        claimRequirements: [try! ClaimRequirement("/sub", .equals("admin"))]))
            ])
        router.group("admin")
            .add(middleware: JWTKernelAuthenticator(verifier: admins, realm: "api"))
            .get("me") { _, context in try context.requireIdentity().subject ?? "" }
        router.group("open")
            .add(middleware: JWTKernelAuthenticator(verifier: fixture.verifier, realm: "api", tokenRequired: false))
            .get("me") { _, context in context.identity?.subject ?? "anonymous" }
        return LiveFixture.application(router)
    }

    static let invalid = #"Bearer realm="api", error="invalid_token""#

    func testVerdicts() async throws {
        let f = fixture!
        try await application().test(.live) { client in
            let valid = try await client.get("/api/me", bearer: f.token())
            XCTAssertEqual(valid, Answer(status: 200, challenge: nil, body: "user-1"))

            let expired = try await client.get("/api/me", bearer: f.token(expiresIn: -3600))
            XCTAssertEqual(expired.status, 401)
            XCTAssertEqual(expired.challenge, Self.invalid)
            XCTAssertTrue(expired.body.contains(#""message":"expired""#), expired.body)

            let audience = try await client.get("/api/me", bearer: f.token(audience: "another-app"))
            XCTAssertEqual(audience.status, 401, "a wrong audience is 401 invalid_token, as jwtk_status_http says")
            XCTAssertEqual(audience.challenge, Self.invalid)
            XCTAssertTrue(audience.body.contains(#""message":"bad_audience""#), audience.body)

            let unknown = try await client.get("/api/me", bearer: f.token(issuer: "https://elsewhere.test"))
            XCTAssertEqual(unknown.status, 401)
            XCTAssertEqual(unknown.challenge, Self.invalid)
            XCTAssertTrue(unknown.body.contains(#""message":"unknown_issuer""#), unknown.body)

            let notAdmin = try await client.get("/admin/me", bearer: f.token())
            XCTAssertEqual(notAdmin.status, 403, "an unmet claim requirement: a genuine token without the privilege")
            XCTAssertEqual(notAdmin.challenge, #"Bearer realm="api", error="insufficient_scope""#)
            XCTAssertTrue(notAdmin.body.contains(#""message":"claim_requirement_failed""#), notAdmin.body)

            let forged = try await client.get("/api/me", bearer: f.token() + "x")
            XCTAssertEqual(forged.status, 401)
            XCTAssertEqual(forged.challenge, Self.invalid)

            let down = try await client.get("/api/me", bearer: f.token(issuer: LiveFixture.downIssuer))
            XCTAssertEqual(down.status, 503, "an issuer whose keys never loaded")
            XCTAssertNil(down.challenge, "a 503 judges no token: no challenge")
            XCTAssertTrue(down.body.contains(#""message":"keys_unavailable""#), down.body)
        }
    }

    func testMissingTokenAndSchemes() async throws {
        let f = fixture!
        try await application().test(.live) { client in
            let none = try await client.get("/api/me")
            XCTAssertEqual(none.status, 401)
            XCTAssertEqual(none.challenge, #"Bearer realm="api""#, "no error= without a token (RFC 6750 3.1)")

            let basic = try await client.get("/api/me", authorization: "Basic dXNlcjpwYXNz")
            XCTAssertEqual(basic.status, 401)
            XCTAssertEqual(basic.challenge, #"Bearer realm="api""#)

            let lowercase = try await client.get("/api/me", authorization: "bearer  " + f.token())
            XCTAssertEqual(lowercase.status, 200, "the scheme is case-insensitive")

            let anonymous = try await client.get("/open/me")
            XCTAssertEqual(anonymous, Answer(status: 200, challenge: nil, body: "anonymous"))
            let optional = try await client.get("/open/me", bearer: f.token())
            XCTAssertEqual(optional.body, "user-1")
            let bad = try await client.get("/open/me", bearer: f.token(expiresIn: -3600))
            XCTAssertEqual(bad.status, 401, "a bad token is refused even where a token is optional")
        }
    }
}
