import Hummingbird
import HummingbirdAuth
import HummingbirdTesting
import JWTKernel
import JWTKernelHummingbird
import JWTKernelIntegrationTesting
import XCTest

/// The issuer rotates its key while the server runs: a token with the new `kid` is refused until the
/// refresher (woken by that unknown kid, on its own thread) has fetched the new set, then accepted; a token
/// of the withdrawn key is refused from then on. No request waits for a fetch.
final class KeyRotationLiveTests: XCTestCase {
    var fixture: LiveFixture!

    override func setUp() async throws { fixture = try await LiveFixture() }
    override func tearDown() async throws { fixture.stop() }

    func testRotationDuringTheTest() async throws {
        let f = fixture!
        let router = Router(context: BasicAuthRequestContext<VerifiedJWT>.self)
        router.add(middleware: JWTKernelAuthenticator(verifier: f.verifier)).get("kid") { _, context in
            try context.requireIdentity().kid ?? ""
        }
        try await LiveFixture.application(router).test(.live) { client in
            let old = f.token(kid: "k1"), new = f.token(kid: "k2")
            let before = try await client.get("/kid", bearer: old)
            XCTAssertEqual(before, Answer(status: 200, challenge: nil, body: "k1"))
            let early = try await client.get("/kid", bearer: new)
            XCTAssertEqual(early.status, 401)
            XCTAssertTrue(early.body.contains(#""message":"unknown_kid""#), early.body)

            f.issuer.serveKeys(["k2"], on: f.server)
            let fetchesBefore = f.server.requests(f.issuer.path)
            let accepted = try await eventually(5) { try await client.get("/kid", bearer: new).status == 200 }
            XCTAssertTrue(accepted, "the new key is used once fetched")
            XCTAssertGreaterThan(f.server.requests(f.issuer.path), fetchesBefore, "fetched because of the unknown kid")
            let after = try await client.get("/kid", bearer: new)
            XCTAssertEqual(after, Answer(status: 200, challenge: nil, body: "k2"))
            let withdrawn = try await client.get("/kid", bearer: old)
            XCTAssertEqual(withdrawn.status, 401, "the old key left the set")
            XCTAssertEqual(withdrawn.challenge, #"Bearer realm="api", error="invalid_token""#)
        }
    }
}
