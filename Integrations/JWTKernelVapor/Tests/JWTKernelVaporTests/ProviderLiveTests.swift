import JWTKernel
import JWTKernelIntegrationTesting
import JWTKernelVapor
import XCTVapor

/// A route's own claims type that Apple's tokens do not fit (they carry no `plan`).
struct NeedsPlan: Decodable {
    let plan: String
}

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
            preset: .apple(audiences: ["com.example.app"]).mirrored(at: fixture.server.url("/apple")))
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
        // Typed, as vapor/jwt hands out: Apple's claims, and a token from the body (Apple's identityToken).
        app.get("apple", "typed") { req in try req.jwtKernel.apple.verify(as: AppleClaims.self).sub }
        app.post("apple", "body") { req in
            try req.jwtKernel.apple.verify(try req.content.get(String.self, at: "identityToken"), as: AppleClaims.self)
                .sub
        }
        app.get("apple", "strict") { req in try req.jwtKernel.apple.verify(as: NeedsPlan.self).plan }
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

        let typed = try await client.get("/apple/typed", bearer: try appleToken())
        XCTAssertEqual(typed, Answer(status: 200, challenge: nil, body: "001234.abcd"), "verify(as: AppleClaims.self)")
        let strict = try await client.get("/apple/strict", bearer: try appleToken())
        XCTAssertEqual(strict.status, 401, "claims that do not fit the route's type")
        XCTAssertEqual(strict.challenge, #"Bearer realm="api", error="invalid_token""#)
        XCTAssertTrue(strict.body.contains(#""reason":"claims_not_decodable""#), strict.body)
        var body: Answer?
        try await client.test(
            .POST, "/apple/body",
            beforeRequest: { req in try req.content.encode(["identityToken": try self.appleToken()]) },
            afterResponse: { res async in
                body = Answer(status: res.status.code, challenge: nil, body: res.body.string)
            })
        XCTAssertEqual(body, Answer(status: 200, challenge: nil, body: "001234.abcd"), "a token from the body")

        let audience = try await client.get("/apple", bearer: try appleToken(audience: "com.other.app"))
        XCTAssertEqual(audience.status, 401)
        let expired = try await client.get("/apple", bearer: try appleToken(expiresIn: -3600))
        XCTAssertEqual(expired.status, 401)
        XCTAssertTrue(expired.body.contains(#""reason":"expired""#), expired.body)
        let hs256 = try await client.get("/apple", bearer: f.token())
        XCTAssertEqual(hs256.status, 401, "another issuer's token is not Apple's")

        let unconfigured = try await client.get("/google", bearer: try appleToken())
        XCTAssertEqual(unconfigured.status, 500, "a provider never configured is the server's fault")
    }
}
