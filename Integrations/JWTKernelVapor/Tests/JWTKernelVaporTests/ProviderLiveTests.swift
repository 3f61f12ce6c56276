import JWTKernel
import JWTKernelIntegrationTesting
import JWTKernelVapor
import XCTVapor

/// An application's own identity type.
struct User: Authenticatable {
    let id: String
}

/// Provider shortcuts (`app.jwtKernel.apple`, `req.jwtKernel.apple.verify()`) with Apple's preset (its
/// issuer, RS256 only, `sub` and `iat` required) and its keys served from the loopback server (a mirror:
/// `ProviderPreset.mirrored(at:)`), signed by an RSA key made with OpenSSL.
final class ProviderLiveTests: XCTestCase {
    var fixture: VaporFixture!
    var key: OpenSSLRSAKey!

    override func setUp() async throws {
        fixture = try await VaporFixture()
        key = try OpenSSLRSAKey(kid: "apple-1")
        fixture.server.serve("/apple", json: try key.jwks())
        try fixture.app.jwtKernel.apple.configure(
            preset: .apple(audience: ["com.example.app"]).mirrored(at: fixture.server.url("/apple")))
    }

    override func tearDown() async throws { try await fixture.shutdown() }

    func appleToken(
        subject: String = "001234.abcd", audience: String = "com.example.app", expiresIn: Int = 600
    ) throws
        -> String
    {
        let now = Int(Date().timeIntervalSince1970)
        return try key.token(
            claims:
                #"{"iss":"https://appleid.apple.com","aud":"\#(audience)","sub":"\#(subject)","iat":\#(now),"exp":\#(now + expiresIn)}"#
        )
    }

    func testAppleShortcutsAndOwnIdentity() async throws {
        let f = fixture!
        let app = f.app
        app.get("apple") { req in try req.jwtKernel.apple.verify().subject ?? "" }
        app.grouped(
            app.jwtKernel.apple.authenticator { token, _ in
                token.subject == "unknown" ? nil : User(id: token.subject ?? "")
            }
        ).get("user") { req in try req.auth.require(User.self).id }
        app.get("google") { req in try req.jwtKernel.google.verify().subject ?? "" }
        let client = try await f.running()
        let loaded = await eventually(5) { app.jwtKernel.store.keys(forIssuer: "https://appleid.apple.com") != nil }
        XCTAssertTrue(loaded)

        let valid = try await client.get("/apple", bearer: try appleToken())
        XCTAssertEqual(valid, Answer(status: 200, challenge: nil, body: "001234.abcd"))
        let user = try await client.get("/user", bearer: try appleToken())
        XCTAssertEqual(user, Answer(status: 200, challenge: nil, body: "001234.abcd"))

        let unknownUser = try await client.get("/user", bearer: try appleToken(subject: "unknown"))
        XCTAssertEqual(unknownUser.status, 401)
        XCTAssertTrue(unknownUser.body.contains(#""reason":"unknown_identity""#), unknownUser.body)

        let audience = try await client.get("/apple", bearer: try appleToken(audience: "com.other.app"))
        XCTAssertEqual(audience.status, 403)
        let expired = try await client.get("/apple", bearer: try appleToken(expiresIn: -3600))
        XCTAssertEqual(expired.status, 401)
        XCTAssertTrue(expired.body.contains(#""reason":"expired""#), expired.body)
        let hs256 = try await client.get("/apple", bearer: f.token())
        XCTAssertEqual(hs256.status, 401, "another issuer's token is not Apple's")

        let unconfigured = try await client.get("/google", bearer: try appleToken())
        XCTAssertEqual(unconfigured.status, 500, "a provider never configured is the server's fault")
    }
}
