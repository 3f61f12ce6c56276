import Foundation
import JWTKernelTestSupport
import XCTest

@testable import JWTKernel
@testable import JWTKernelRemote

/// `stop()` against key URLs that accept the connection and never answer (the loopback server's `hang`
/// routes), with fetch timeouts of 30 s: it returns within its 1 s bound (asserted under 2 s), cuts the
/// fetch in progress, starts none afterwards (the server's own request log), and leaves the published keys
/// as they were, with no failure recorded or reported for the cut fetch.
final class KeyRefresherStopTests: XCTestCase {
    var server: LoopbackServer!
    /// Released in tearDown (see KeyRefresherScheduleTests.store).
    var store: KeyStore! = KeyStore()
    var refresher: KeyRefresher?

    /// The bound the doc comments state is 1 s; asserted generously, far below the 30 s timeouts.
    let bound = 2.0

    override func setUpWithError() throws { server = try LoopbackServer() }
    override func tearDown() {
        refresher?.stop()
        refresher = nil
        server.stop()
        store = nil
    }

    /// Timeouts much longer than the bound, so only a cut fetch can end in time.
    var slowConfiguration: HTTPKeySourceConfiguration {
        var config = HTTPKeySourceConfiguration()
        config.connectTimeout = 30
        config.totalTimeout = 30
        return config
    }

    func makeRefresher() -> KeyRefresher {
        var policy = RefreshPolicy()
        policy.minMaxAge = 1
        policy.refreshAheadFraction = 0.5
        policy.initialBackoff = 0.5
        policy.maxIdleWait = 0.2
        let r = KeyRefresher(store: store, policy: policy)
        refresher = r
        return r
    }

    /// Serves `path` as a URL that takes the request and answers only after a minute.
    func hang(_ path: String) { server.set(path, ["mode": "hang", "seconds": 60, "body": RemoteKit.jwks(["k1"])]) }

    func totalRequests() -> Int {
        (server.command(["cmd": "log"])["requests"] as? [Any])?.count ?? 0
    }

    func testStopWithEveryKeyURLHangingReturnsWithinTheBoundAndFetchesNoMore() throws {
        let r = makeRefresher()
        for i in 1...3 {
            hang("/hang\(i)")
            r.add(
                issuer: "https://hang\(i).test",
                source: try HTTPKeySource(url: server.url("/hang\(i)"), configuration: slowConfiguration))
        }
        // One more issuer by OpenID Connect discovery, its document hanging.
        hang("/oidc/.well-known/openid-configuration")
        r.add(discovery: try OpenIDDiscovery(issuer: server.url("/oidc"), configuration: slowConfiguration))
        r.start()
        XCTAssertTrue(RemoteKit.eventually(5) { self.totalRequests() >= 1 }, "a fetch is hanging")
        usleep(300_000)
        let stopping = RemoteKit.elapsed { r.stop() }
        print("stop() with 4 issuers hanging: \(String(format: "%.2f", stopping * 1000)) ms")
        XCTAssertLessThan(stopping, bound, "stop() waited for a hanging fetch")
        XCTAssertFalse(r.isRunning)
        let after = totalRequests()
        usleep(1_000_000)
        XCTAssertEqual(totalRequests(), after, "a fetch started after stop()")
        for stats in r.allStats {
            XCTAssertEqual(stats.failures, [:], "a cut fetch is no failure: \(stats.issuer)")
            XCTAssertEqual(stats.discovery?.failures ?? [:], [:], "a cut document fetch is no failure")
            XCTAssertNil(stats.lastError)
        }
    }

    func testStopLeavesPublishedKeysAsTheyAreAndReportsNoFailure() throws {
        server.serve("/jwks", json: RemoteKit.jwks(["k1"]), headers: ["Cache-Control": "max-age=1"])
        let r = makeRefresher()
        let events = EventLog()
        r.observe { events.append($0) }
        r.add(
            issuer: RemoteKit.issuer,
            source: try HTTPKeySource(url: server.url("/jwks"), configuration: slowConfiguration))
        r.start()
        XCTAssertTrue(RemoteKit.eventually(5) { self.store.keys(forIssuer: RemoteKit.issuer) != nil })
        let before = try XCTUnwrap(store.keys(forIssuer: RemoteKit.issuer))
        hang("/jwks")
        let requested = server.requests("/jwks")
        // The refresh ahead of expiry (at 0.5 s of the 1 s lifetime) hangs.
        XCTAssertTrue(RemoteKit.eventually(5) { self.server.requests("/jwks") > requested })
        let stopping = RemoteKit.elapsed { r.stop() }
        XCTAssertLessThan(stopping, bound)
        usleep(1_500_000)  // past the keys' lifetime: a running refresher would have marked them stale
        let entry = try XCTUnwrap(store.entry(forIssuer: RemoteKit.issuer))
        XCTAssertEqual(entry.keys?.keys.map(\.kid), before.keys.map(\.kid), "the keys published stay")
        XCTAssertFalse(entry.isStale, "a stopped refresher marks nothing stale")
        let stats = try XCTUnwrap(r.stats(issuer: RemoteKit.issuer))
        XCTAssertEqual(stats.failures, [:])
        XCTAssertEqual(stats.consecutiveFailures, 0)
        XCTAssertTrue(stats.hasKeys)
        XCTAssertFalse(
            events.all.contains { $0.kind == .fetchFailed || $0.kind == .documentFailed || $0.kind == .keysStale },
            "\(events.all)")
    }

    /// Without the thread: a host's `refreshDue()` and another thread's `refreshNow(issuer:)` are cut too, and
    /// neither fetches once stopped.
    func testStopCutsHostDrivenFetchesAndNoneStartsAfterIt() throws {
        hang("/a")
        hang("/b")
        let r = makeRefresher()
        r.add(
            issuer: "https://a.test", source: try HTTPKeySource(url: server.url("/a"), configuration: slowConfiguration)
        )
        r.add(
            issuer: "https://b.test", source: try HTTPKeySource(url: server.url("/b"), configuration: slowConfiguration)
        )
        let pass = DispatchSemaphore(value: 0), now = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            r.refreshDue()
            pass.signal()
        }
        XCTAssertTrue(RemoteKit.eventually(5) { self.server.requests("/a") + self.server.requests("/b") == 1 })
        let other = server.requests("/a") == 1 ? "https://b.test" : "https://a.test"
        DispatchQueue.global().async {
            r.refreshNow(issuer: other)
            now.signal()
        }
        XCTAssertTrue(RemoteKit.eventually(5) { self.server.requests("/a") + self.server.requests("/b") == 2 })
        let stopping = RemoteKit.elapsed {
            r.stop()
            pass.wait()
            now.wait()
        }
        XCTAssertLessThan(stopping, bound, "refreshDue() and refreshNow(issuer:) ended with stop()")
        XCTAssertEqual(r.refreshDue(), 0)
        XCTAssertFalse(r.refreshNow(issuer: "https://a.test"))
        usleep(300_000)
        XCTAssertEqual(server.requests("/a") + server.requests("/b"), 2, "a fetch started after stop()")
        XCTAssertEqual(r.allStats.map(\.failures), [[:], [:]])
    }
}

/// The events a refresher reported, collected from its thread.
// Safety: @unchecked because `events` is read and written under `lock` only.
private final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [KeyRefresherEvent] = []
    func append(_ event: KeyRefresherEvent) { lock.withLock { events.append(event) } }
    var all: [KeyRefresherEvent] { lock.withLock { events } }
}
