import Foundation
import JWTKernelTestSupport
import XCTest

@testable import JWTKernel
@testable import JWTKernelRemote

/// RefreshPolicy keeps every duration inside its bounds, whatever it is given, and the
/// smallest policy it allows does not hammer a key endpoint: counted by the real loopback
/// server while the refresher's own thread runs.
final class RefreshPolicyBoundsTests: XCTestCase {
    typealias B = RefreshPolicy.Bounds

    /// Every field set to `value`.
    func policy(all value: Double) -> RefreshPolicy {
        var p = RefreshPolicy()
        p.defaultMaxAge = value
        p.minMaxAge = value
        p.maxMaxAge = value
        p.refreshAheadFraction = value
        p.unknownKidCooldown = value
        p.maxStaleness = value
        p.initialBackoff = value
        p.maxBackoff = value
        p.maxIdleWait = value
        return p
    }

    func fields(_ p: RefreshPolicy) -> [Double] {
        [
            p.defaultMaxAge, p.minMaxAge, p.maxMaxAge, p.refreshAheadFraction, p.unknownKidCooldown, p.maxStaleness,
            p.initialBackoff, p.maxBackoff, p.maxIdleWait,
        ]
    }

    let bounds = [
        B.defaultMaxAge, B.minMaxAge, B.maxMaxAge, B.refreshAheadFraction, B.unknownKidCooldown, B.maxStaleness,
        B.initialBackoff, B.maxBackoff, B.maxIdleWait,
    ]

    func testZeroAndNegativeValuesBecomeTheLowerBounds() {
        for value: Double in [0, -1, -.infinity, -.greatestFiniteMagnitude, .leastNonzeroMagnitude] {
            XCTAssertEqual(fields(policy(all: value)), bounds.map(\.lowerBound), "\(value)")
        }
        XCTAssertEqual(B.unknownKidCooldown.lowerBound, 0.5)
        XCTAssertEqual(B.initialBackoff.lowerBound, 0.5)
        XCTAssertEqual(B.maxBackoff.lowerBound, 5)
        XCTAssertEqual(B.minMaxAge.lowerBound, 1)
        XCTAssertEqual(B.refreshAheadFraction.lowerBound, 0.5)
    }

    func testHugeValuesBecomeTheUpperBoundsAndStayUsable() {
        for value: Double in [.infinity, 1e300, .greatestFiniteMagnitude] {
            let p = policy(all: value)
            XCTAssertEqual(fields(p), bounds.map(\.upperBound), "\(value)")
            // What the refresher computes with them stays finite (the withdrawal message prints Int(maxStaleness)).
            XCTAssertEqual(Int(exactly: p.maxStaleness), 366 * 86_400)
            XCTAssertTrue(p.backoff(afterFailures: 1000).isFinite)
            XCTAssertEqual(p.lifetime(Int64.max), B.maxMaxAge.upperBound)
        }
    }

    func testNaNIsTheDefault() {
        XCTAssertEqual(fields(policy(all: .nan)), fields(RefreshPolicy()))
        XCTAssertEqual(fields(policy(all: -.nan)), fields(RefreshPolicy()))
    }

    func testValuesInsideTheBoundsAreKeptAndTheDefaultsAreInside() {
        for (value, range) in zip(fields(RefreshPolicy()), bounds) { XCTAssertTrue(range.contains(value)) }
        var p = RefreshPolicy()
        p.unknownKidCooldown = 0.75
        p.initialBackoff = 2
        p.maxBackoff = 16
        p.refreshAheadFraction = 0.9
        XCTAssertEqual(p.unknownKidCooldown, 0.75)
        XCTAssertEqual(p.refreshAheadFraction, 0.9)
        XCTAssertEqual((1...6).map { p.backoff(afterFailures: $0) }, [2, 4, 8, 16, 16, 16])
    }

    func testBackoffFromTheSmallestPolicyDoublesUpToItsCap() {
        let p = policy(all: 0)
        XCTAssertEqual((1...7).map { p.backoff(afterFailures: $0) }, [0.5, 1, 2, 4, 5, 5, 5])
        XCTAssertEqual(p.backoff(afterFailures: 0), 0.5)
        XCTAssertEqual(p.backoff(afterFailures: .max), 5)
        // A cap below the start is the start (it never shortens the first wait).
        var q = RefreshPolicy()
        q.initialBackoff = 60
        q.maxBackoff = 5
        XCTAssertEqual(q.backoff(afterFailures: 1), 60)
        XCTAssertEqual(q.backoff(afterFailures: 3), 60)
    }

    func testLifetimeOfTheSmallestPolicyIsOneSecond() {
        let p = policy(all: 0)
        XCTAssertEqual(p.lifetime(0), 1)
        XCTAssertEqual(p.lifetime(nil), 1)
        XCTAssertEqual(p.lifetime(-5), 1)
    }

    // MARK: Against the loopback server, the refresher's thread running

    var server: LoopbackServer!
    var store: KeyStore! = KeyStore()
    var refresher: KeyRefresher?

    override func setUpWithError() throws { server = try LoopbackServer() }
    override func tearDown() {
        refresher?.stop()
        refresher = nil
        server.stop()
        store = nil
    }

    /// A refresher with every field of its policy set to 0 (the smallest it allows), started.
    func startSmallest(_ configure: (inout RefreshPolicy) -> Void = { _ in }) throws -> KeyRefresher {
        var p = policy(all: 0)
        configure(&p)
        let r = KeyRefresher(store: store, policy: p)
        var config = HTTPKeySourceConfiguration()
        config.totalTimeout = 1
        config.connectTimeout = 1
        r.add(issuer: RemoteKit.issuer, source: try HTTPKeySource(url: server.url("/jwks"), configuration: config))
        refresher = r
        r.start()
        return r
    }

    func testFailingServerIsRetriedWithBackoffWithTheSmallestPolicy() throws {
        server.set("/jwks", ["status": 500, "body": "down"])
        let r = try startSmallest()
        // Retries at 0, 0.5, 1.5 and 3.5 s (backoff from 0.5 s, doubling).
        usleep(3_000_000)
        let requests = server.requests("/jwks")
        XCTAssertGreaterThanOrEqual(requests, 2, "it does retry")
        XCTAssertLessThanOrEqual(requests, 4, "\(requests) requests in 3 s")
        XCTAssertGreaterThanOrEqual(r.stats(issuer: RemoteKit.issuer)?.failures["http_status"] ?? 0, 1)
    }

    func testUnknownKidFloodAgainstAFailingServerFetchesAtMostOncePerSmallestCooldown() throws {
        server.serve("/jwks", json: RemoteKit.jwks(["k1"]))
        // Keys kept while the server fails, so every flooding token is an unknown kid (not keys_unavailable).
        let r = try startSmallest { $0.maxStaleness = 3600 }
        XCTAssertTrue(RemoteKit.eventually(3) { self.store.keys(forIssuer: RemoteKit.issuer) != nil })
        server.set("/jwks", ["status": 500, "body": "down"])
        server.resetLog()
        let verifier = RemoteKit.verifier(store)
        let window = 2.0
        let start = MonotonicClock().now()
        var tokens = 0
        while MonotonicClock().now() - start < window {
            XCTAssertEqual(verifier.check(RemoteKit.unsignedToken(kid: "rnd\(tokens)"))?.code, .unknownKid)
            tokens += 1
            if tokens % 100 == 0 { usleep(1000) }
        }
        let flooded = server.requests("/jwks")
        let bound = Int((window / B.unknownKidCooldown.lowerBound).rounded(.up)) + 1
        XCTAssertGreaterThanOrEqual(flooded, 1)
        XCTAssertLessThanOrEqual(flooded, bound, "\(flooded) requests in \(window) s under \(tokens) unknown kids")
        let stats = try XCTUnwrap(r.stats(issuer: RemoteKit.issuer))
        XCTAssertGreaterThan(stats.totalFailures, 0)
        XCTAssertGreaterThan(stats.unknownKidSuppressed, 100)
    }

    func testHealthyServerSayingMaxAgeZeroIsFetchedAtMostTwiceASecond() throws {
        server.serve("/jwks", json: RemoteKit.jwks(["k1"]), headers: ["Cache-Control": "max-age=0"])
        let r = try startSmallest()
        XCTAssertTrue(RemoteKit.eventually(3) { self.store.keys(forIssuer: RemoteKit.issuer) != nil })
        server.resetLog()
        usleep(2_000_000)
        let fetched = server.requests("/jwks")
        // Lifetime clamped to 1 s, refreshed at half of it: one fetch per 0.5 s.
        XCTAssertGreaterThanOrEqual(fetched, 2, "it does refresh")
        XCTAssertLessThanOrEqual(fetched, 5, "\(fetched) requests in 2 s")
        XCTAssertEqual(r.stats(issuer: RemoteKit.issuer)?.totalFailures, 0)
    }
}
