import JWTKernel
import JWTKernelIntegrationTesting
import JWTKernelVapor
import XCTVapor

/// The issuer rotates its key while the application runs: a token with the new `kid` is refused until the
/// application's refresher (woken by that unknown kid) has fetched the new set, then accepted; a token of
/// the withdrawn key is refused from then on.
final class KeyRotationLiveTests: XCTestCase {
    var fixture: VaporFixture!

    override func setUp() async throws { fixture = try await VaporFixture() }
    override func tearDown() async throws { try await fixture.shutdown() }

    func testRotationDuringTheTest() async throws {
        let f = fixture!
        f.app.get("kid") { req in try req.jwtKernel.verify().kid ?? "" }
        let client = try await f.running()
        let old = f.token(kid: "k1"), new = f.token(kid: "k2")
        let before = try await client.get("/kid", bearer: old)
        XCTAssertEqual(before, Answer(status: 200, challenge: nil, body: "k1"))
        let early = try await client.get("/kid", bearer: new)
        XCTAssertEqual(early.status, 401)
        XCTAssertTrue(early.body.contains(#""reason":"unknown_kid""#), early.body)

        f.issuer.serveKeys(["k2"], on: f.server)
        let fetchesBefore = f.server.requests(f.issuer.path)
        let accepted = try await eventually(5) { try await client.get("/kid", bearer: new).status == 200 }
        XCTAssertTrue(accepted, "the new key is used once fetched")
        XCTAssertGreaterThan(f.server.requests(f.issuer.path), fetchesBefore, "fetched because of the unknown kid")
        let after = try await client.get("/kid", bearer: new)
        XCTAssertEqual(after, Answer(status: 200, challenge: nil, body: "k2"))
        let withdrawn = try await client.get("/kid", bearer: old)
        XCTAssertEqual(withdrawn.status, 401, "the old key left the set")
    }
}
