import JWTKernelTestSupport
import XCTest

@testable import JWTKernel
@testable import JWTKernelRemote

/// The refresher's schedule against the real loopback server, driven step by
/// step (`refreshDue()`) on a hand-moved clock: max-age, ETag, backoff, staleness.
final class KeyRefresherScheduleTests: XCTestCase {
    var server: LoopbackServer!
    let clock = ManualClock()
    /// Released in tearDown: XCTest keeps every test case alive until the process exits.
    var store: KeyStore! = KeyStore()

    override func setUpWithError() throws { server = try LoopbackServer() }
    override func tearDown() {
        server.stop()
        store = nil
    }

    func refresher(_ configure: (inout RefreshPolicy) -> Void = { _ in }) throws -> KeyRefresher {
        var policy = RefreshPolicy()
        configure(&policy)
        let refresher = KeyRefresher(store: store, policy: policy, clock: clock)
        var config = HTTPKeySourceConfiguration()
        config.totalTimeout = 1
        refresher.add(
            issuer: RemoteKit.issuer, source: try HTTPKeySource(url: server.url("/jwks"), configuration: config))
        return refresher
    }

    func testMaxAgeIsClampedAndRefreshHappensAheadOfExpiryWithETag() throws {
        server.serve("/jwks", json: RemoteKit.jwks(["k1"]), headers: ["Cache-Control": "max-age=100"], etag: "\"v1\"")
        let r = try refresher {
            $0.minMaxAge = 60; $0.maxMaxAge = 3600; $0.refreshAheadFraction = 0.8
        }
        let verifier = RemoteKit.verifier(store)
        let token = RemoteKit.token(server, kid: "k1")
        XCTAssertEqual(verifier.check(token)?.code, .keysUnavailable, "nothing fetched before the first refresh")
        XCTAssertEqual(r.refreshDue(), 1)
        XCTAssertNil(verifier.check(token))
        XCTAssertEqual(r.refreshDue(), 0, "nothing due right after a fetch")
        clock.advance(79)
        XCTAssertEqual(r.refreshDue(), 0)
        clock.advance(1.5)  // 80% of max-age=100
        XCTAssertEqual(r.refreshDue(), 1)
        XCTAssertEqual(server.conditionalHeaders("/jwks"), [nil, "\"v1\""])
        let stats = try XCTUnwrap(r.stats(issuer: RemoteKit.issuer))
        XCTAssertEqual(stats.fetches, 2)
        XCTAssertEqual(stats.notModified, 1)
        XCTAssertEqual(stats.keysLoaded, 1)
        XCTAssertNil(verifier.check(token))

        // max-age above the range is clamped down, below it up.
        server.serve(
            "/jwks", json: RemoteKit.jwks(["k1"]), headers: ["Cache-Control": "max-age=999999"], etag: "\"v2\"")
        clock.advance(100)
        XCTAssertEqual(r.refreshDue(), 1)
        XCTAssertEqual(
            try XCTUnwrap(r.stats(issuer: RemoteKit.issuer)?.nextAttemptAt) - clock.now(), 3600 * 0.8, accuracy: 0.01)
        server.serve("/jwks", json: RemoteKit.jwks(["k1"]), headers: ["Cache-Control": "no-store"], etag: "\"v3\"")
        clock.advance(3600)
        XCTAssertEqual(r.refreshDue(), 1)
        XCTAssertEqual(
            try XCTUnwrap(r.stats(issuer: RemoteKit.issuer)?.nextAttemptAt) - clock.now(), 60 * 0.8, accuracy: 0.01)
    }

    func testDefaultLifetimeWithoutCacheControlIsTenMinutes() throws {
        server.serve("/jwks", json: RemoteKit.jwks(["k1"]))
        let r = try refresher()
        XCTAssertEqual(r.refreshDue(), 1)
        XCTAssertEqual(
            try XCTUnwrap(r.stats(issuer: RemoteKit.issuer)?.nextAttemptAt) - clock.now(), 600 * 0.8, accuracy: 0.01)
    }

    func testFailuresKeepLastGoodKeysThenStaleThenWithdrawnWithBackoff() throws {
        server.serve("/jwks", json: RemoteKit.jwks(["k1"]), headers: ["Cache-Control": "max-age=100"])
        let r = try refresher {
            $0.minMaxAge = 10; $0.maxStaleness = 1000; $0.initialBackoff = 2; $0.maxBackoff = 16
        }
        let verifier = RemoteKit.verifier(store)
        let token = RemoteKit.token(server, kid: "k1")
        XCTAssertEqual(r.refreshDue(), 1)

        server.set("/jwks", ["status": 500, "body": "down"])
        clock.advance(80)
        XCTAssertEqual(r.refreshDue(), 1)
        XCTAssertNil(verifier.check(token), "last good keys still verify")
        var stats = try XCTUnwrap(r.stats(issuer: RemoteKit.issuer))
        XCTAssertEqual(stats.failures["http_status"], 1)
        XCTAssertEqual(stats.lastError, "http_status: HTTP status 500")
        XCTAssertFalse(stats.isStale)
        // Backoff doubles: 2, 4, 8, 16, 16 s.
        var delays: [Double] = []
        for _ in 0..<5 {
            let next = try XCTUnwrap(r.stats(issuer: RemoteKit.issuer)?.nextAttemptAt)
            delays.append(next - clock.now())
            clock.advance(next - clock.now())
            XCTAssertEqual(r.refreshDue(), 1)
        }
        XCTAssertEqual(delays, [2, 4, 8, 16, 16])

        // Past the lifetime (100 s after the last success): stale, still verifying, counted.
        clock.advance(100)
        r.refreshDue()
        stats = try XCTUnwrap(r.stats(issuer: RemoteKit.issuer))
        XCTAssertTrue(stats.isStale)
        XCTAssertNil(verifier.check(token))
        XCTAssertNil(verifier.check(token))
        XCTAssertEqual(r.stats(issuer: RemoteKit.issuer)?.staleServed, 2)

        // Garbage of every kind changes nothing.
        for route: [String: Any] in [
            ["status": 200, "body": "not json"], ["status": 200, "body": #"{"keys":[]}"#],
            ["mode": "big", "size": 2 * 1024 * 1024], ["mode": "close_mid", "body": RemoteKit.jwks(["k1", "k2"])],
        ] {
            server.set("/jwks", route)
            clock.advance(16)
            XCTAssertEqual(r.refreshDue(), 1)
            XCTAssertNil(verifier.check(token))
        }
        stats = try XCTUnwrap(r.stats(issuer: RemoteKit.issuer))
        XCTAssertEqual(stats.failures["not_json"], 1)
        XCTAssertEqual(stats.failures["bad_document"], 1)
        XCTAssertEqual(stats.failures["too_large"], 1)
        XCTAssertEqual(stats.failures["truncated"], 1)

        // Past max staleness (1000 s after the last success): withdrawn.
        clock.advance(1000)
        r.refreshDue()
        XCTAssertEqual(verifier.check(token)?.code, .keysUnavailable)
        XCTAssertFalse(try XCTUnwrap(r.stats(issuer: RemoteKit.issuer)).hasKeys)

        // Recovery.
        server.serve("/jwks", json: RemoteKit.jwks(["k1"]))
        clock.advance(16)
        XCTAssertEqual(r.refreshDue(), 1)
        XCTAssertNil(verifier.check(token))
        stats = try XCTUnwrap(r.stats(issuer: RemoteKit.issuer))
        XCTAssertEqual(stats.consecutiveFailures, 0)
        XCTAssertNil(stats.lastError)
        XCTAssertFalse(stats.isStale)
    }

    func testKeysNeverLoadedAreUnavailable() throws {
        server.set("/jwks", ["status": 503, "body": ""])
        let r = try refresher()
        XCTAssertEqual(r.refreshDue(), 1)
        XCTAssertEqual(RemoteKit.verifier(store).check(RemoteKit.token(server, kid: "k1"))?.code, .keysUnavailable)
        XCTAssertEqual(r.stats(issuer: RemoteKit.issuer)?.failures["http_status"], 1)
    }

    func testNotModifiedWithoutAHeldDocumentIsAFailure() throws {
        struct AlwaysNotModified: KeySource {
            func fetch(ifNoneMatch etag: String?) throws(KeySourceError) -> KeyFetch { .notModified(KeyFreshness()) }
        }
        let r = KeyRefresher(store: store, clock: clock)
        r.add(issuer: "https://odd.test", source: AlwaysNotModified())
        XCTAssertEqual(r.refreshDue(), 1)
        XCTAssertNil(store.keys(forIssuer: "https://odd.test"))
        XCTAssertEqual(r.stats(issuer: "https://odd.test")?.failures["bad_document"], 1)
        XCTAssertFalse(try XCTUnwrap(r.stats(issuer: "https://odd.test")).hasKeys)
    }

    func testUnknownKidRefreshIsRateLimitedByTheCooldown() throws {
        server.serve("/jwks", json: RemoteKit.jwks(["k1"]))
        let r = try refresher { $0.unknownKidCooldown = 30 }
        let verifier = RemoteKit.verifier(store)
        XCTAssertEqual(r.refreshDue(), 1)
        server.serve("/jwks", json: RemoteKit.jwks(["k2"]))
        let rotated = RemoteKit.token(server, kid: "k2")
        XCTAssertEqual(verifier.check(rotated)?.code, .unknownKid)
        XCTAssertEqual(r.refreshDue(), 0, "within the cooldown of the first fetch")
        clock.advance(30)
        XCTAssertEqual(r.refreshDue(), 1)
        XCTAssertNil(verifier.check(rotated))
        XCTAssertEqual(
            verifier.check(RemoteKit.token(server, kid: "k1"))?.code, .unknownKid, "removed key stops verifying")
        for i in 0..<100 { _ = verifier.check(RemoteKit.unsignedToken(kid: "random\(i)")) }
        clock.advance(29)
        XCTAssertEqual(r.refreshDue(), 0)
        clock.advance(1)
        XCTAssertEqual(r.refreshDue(), 1)
        XCTAssertEqual(r.refreshDue(), 0)
        let stats = try XCTUnwrap(r.stats(issuer: RemoteKit.issuer))
        XCTAssertEqual(stats.unknownKidRefreshes, 2)
        // The k1 token set the pending request; the 100 random kids were folded into it.
        XCTAssertEqual(stats.unknownKidSuppressed, 100)
        XCTAssertEqual(server.requests("/jwks"), 3)
    }
}
