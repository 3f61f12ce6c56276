import Hummingbird
import HummingbirdAuth
import HummingbirdTesting
import JWTKernel
import JWTKernelHummingbird
import JWTKernelIntegrationTesting
import XCTest

/// The application's own identity type, made from the verified token.
struct User: Sendable {
    let id: String
    let issuer: String
}

final class IdentityLiveTests: XCTestCase {
    var fixture: LiveFixture!

    override func setUp() async throws { fixture = try await LiveFixture() }
    override func tearDown() async throws { fixture.stop() }

    /// `identity` maps subjects to users: `user-1` exists, `nobody` does not (401), `guest` exists but may
    /// not see the route (403 `insufficient_scope`).
    func testOwnIdentityType() async throws {
        let f = fixture!
        let router = Router(context: BasicAuthRequestContext<User>.self)
        let authenticator = JWTKernelAuthenticator<BasicAuthRequestContext<User>>(verifier: f.verifier) {
            token, _, _ in
            switch token.subject {
            case "nobody": return nil
            case "guest": throw BearerError.insufficientScope(realm: "api", scope: "profile")
            default: return User(id: token.subject ?? "", issuer: token.issuer ?? "")
            }
        }
        router.add(middleware: authenticator).get("user") { _, context in
            let user = try context.requireIdentity()
            return "\(user.id)@\(user.issuer)"
        }
        try await LiveFixture.application(router).test(.live) { client in
            let known = try await client.get("/user", bearer: f.token())
            XCTAssertEqual(known, Answer(status: 200, challenge: nil, body: "user-1@https://issuer.test"))

            let nobody = try await client.get(
                "/user", bearer: f.issuer.token(on: f.server, kid: "k1", subject: "nobody"))
            XCTAssertEqual(nobody.status, 401)
            XCTAssertEqual(nobody.challenge, #"Bearer realm="api", error="invalid_token""#)
            XCTAssertTrue(nobody.body.contains(#""message":"unknown_identity""#), nobody.body)

            let guest = try await client.get("/user", bearer: f.issuer.token(on: f.server, kid: "k1", subject: "guest"))
            XCTAssertEqual(guest.status, 403)
            XCTAssertEqual(guest.challenge, #"Bearer realm="api", error="insufficient_scope", scope="profile""#)
        }
    }
}
