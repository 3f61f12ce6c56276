import Foundation
import JWTKernelTestSupport
import XCTest

@testable import JWTKernel
@testable import JWTKernelRemote

/// The refresher's own thread against the real loopback server: rotation, the
/// unknown-kid flood, and servers that fail slowly, while tokens with known kids
/// keep verifying without waiting.
final class KeyRefresherThreadTests: XCTestCase {
    var server: LoopbackServer!
    /// Released in tearDown (see KeyRefresherScheduleTests.store).
    var store: KeyStore! = KeyStore()
    var refresher: KeyRefresher?

    override func setUpWithError() throws { server = try LoopbackServer() }
    override func tearDown() {
        refresher?.stop()
        refresher = nil
        server.stop()
        store = nil
    }

    func start(
        cooldown: Double, timeout: Double = 2, _ configure: (inout RefreshPolicy) -> Void = { _ in }
    ) throws -> KeyRefresher {
        var policy = RefreshPolicy()
        policy.unknownKidCooldown = cooldown
        policy.maxIdleWait = 0.2
        configure(&policy)
        let r = KeyRefresher(store: store, policy: policy)
        var config = HTTPKeySourceConfiguration()
        config.totalTimeout = timeout
        config.connectTimeout = 1
        r.add(issuer: RemoteKit.issuer, source: try HTTPKeySource(url: server.url("/jwks"), configuration: config))
        refresher = r
        r.start()
        return r
    }

    /// Threads of this process named like the refresher's (other threads come and go: Dispatch, XCTest).
    func refresherThreads() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").filter { tid in
            let comm = (try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8)) ?? ""
            return comm.trimmingCharacters(in: .whitespacesAndNewlines) == KeyRefresher.threadName
        }.count
    }

    func testNoThreadAndNoFetchUntilStarted() throws {
        server.serve("/jwks", json: RemoteKit.jwks(["k1"]))
        let r = KeyRefresher(store: store)
        r.add(issuer: RemoteKit.issuer, source: try HTTPKeySource(url: server.url("/jwks")))
        usleep(300_000)
        XCTAssertEqual(server.requests("/jwks"), 0)
        XCTAssertFalse(r.isRunning)
        XCTAssertEqual(try refresherThreads(), 0)
        r.start()
        r.start()
        XCTAssertTrue(RemoteKit.eventually(3) { self.store.keys(forIssuer: RemoteKit.issuer) != nil })
        XCTAssertEqual(try refresherThreads(), 1, "exactly one thread, however often start() is called")
        r.stop()
        XCTAssertFalse(r.isRunning)
        XCTAssertEqual(try refresherThreads(), 0)
    }

    func testRotationIsPickedUpWithinOneCooldownAndRemovedKeyStopsVerifying() throws {
        server.serve("/jwks", json: RemoteKit.jwks(["old"]))
        let r = try start(cooldown: 0.5)
        let verifier = RemoteKit.verifier(store)
        let old = RemoteKit.token(server, kid: "old"), new = RemoteKit.token(server, kid: "new")
        XCTAssertTrue(RemoteKit.eventually(3) { verifier.check(old) == nil })
        server.serve("/jwks", json: RemoteKit.jwks(["new"]))
        var code: JWTErrorCode?
        let t = RemoteKit.elapsed { code = verifier.check(new)?.code }
        XCTAssertEqual(code, .unknownKid, "the unknown-kid token fails at once")
        XCTAssertLessThan(t, 0.2)
        XCTAssertTrue(RemoteKit.eventually(0.5 + 1.5) { verifier.check(new) == nil }, "new key within one cooldown")
        XCTAssertEqual(verifier.check(old)?.code, .unknownKid, "removed key stops verifying")
        XCTAssertGreaterThanOrEqual(r.stats(issuer: RemoteKit.issuer)?.unknownKidRefreshes ?? 0, 1)
    }

    func testFloodOfRandomUnknownKidsFetchesAtMostOncePerCooldown() throws {
        server.serve("/jwks", json: RemoteKit.jwks(["k1"]))
        let cooldown = 0.5
        let r = try start(cooldown: cooldown)
        let verifier = RemoteKit.verifier(store)
        let known = RemoteKit.token(server, kid: "k1")
        XCTAssertTrue(RemoteKit.eventually(3) { verifier.check(known) == nil })
        server.resetLog()
        var worstKnown = 0.0
        let elapsed = RemoteKit.elapsed {
            for i in 0..<10_000 {
                XCTAssertEqual(
                    verifier.check(RemoteKit.unsignedToken(kid: "rnd\(UInt64.random(in: 0...UInt64.max))"))?.code,
                    .unknownKid)
                if i % 100 == 0 {
                    let t = RemoteKit.elapsed { XCTAssertNil(verifier.check(known)) }
                    worstKnown = max(worstKnown, t)
                }
                // Spread the flood over a few cooldowns.
                if i % 1000 == 999 { usleep(100_000) }
            }
        }
        usleep(useconds_t(cooldown * 1.5 * 1e6))  // a fetch at the end of the last cooldown may still come
        let total = elapsed + cooldown * 1.5
        let fetches = server.requests("/jwks")
        let allowed = Int((total / cooldown).rounded(.up)) + 1
        XCTAssertGreaterThanOrEqual(fetches, 1)
        XCTAssertLessThanOrEqual(fetches, allowed, "fetches \(fetches) in \(total) s with a \(cooldown) s cooldown")
        XCTAssertLessThan(worstKnown, 0.2, "known kids never wait (the fetch timeout is 2 s)")
        let stats = try XCTUnwrap(r.stats(issuer: RemoteKit.issuer))
        XCTAssertGreaterThan(stats.unknownKidSuppressed, 9_000)
        XCTAssertLessThanOrEqual(stats.unknownKidRefreshes, allowed)
    }

    /// Each failure mode while a fetch is in flight on the refresher thread:
    /// tokens with known kids keep verifying, fast.
    func testKnownKeysKeepVerifyingWhileTheServerMisbehaves() throws {
        server.serve("/jwks", json: RemoteKit.jwks(["k1"]))
        let r = try start(cooldown: 0, timeout: 1)
        let verifier = RemoteKit.verifier(store)
        let known = RemoteKit.token(server, kid: "k1")
        XCTAssertTrue(RemoteKit.eventually(3) { verifier.check(known) == nil })
        let modes: [(String, [String: Any])] = [
            ("500", ["status": 500, "body": "err"]),
            ("hang", ["mode": "hang", "seconds": 5, "body": "{}"]),
            ("close_mid", ["mode": "close_mid", "body": RemoteKit.jwks(["k1", "k2", "k3"])]),
            ("5 MiB", ["mode": "big", "size": 5 * 1024 * 1024]),
            ("non-JSON", ["status": 200, "body": "<html>", "headers": ["Content-Type": "text/html"]]),
            ("garbage JSON", ["status": 200, "body": "{\"keys\": 12}"]),
            ("drip", ["mode": "drip", "seconds": 0.1, "body": RemoteKit.jwks(["k1"])]),
        ]
        for (name, route) in modes {
            server.set("/jwks", route)
            let failuresBefore = r.stats(issuer: RemoteKit.issuer)?.totalFailures ?? 0
            _ = verifier.check(RemoteKit.unsignedToken(kid: "trigger-\(name)"))  // starts a fetch
            var worst = 0.0
            let deadline = MonotonicClock().now() + 3
            while MonotonicClock().now() < deadline,
                (r.stats(issuer: RemoteKit.issuer)?.totalFailures ?? 0) == failuresBefore
            {
                let t = RemoteKit.elapsed { XCTAssertNil(verifier.check(known), name) }
                worst = max(worst, t)
                usleep(2000)
            }
            XCTAssertGreaterThan(
                r.stats(issuer: RemoteKit.issuer)?.totalFailures ?? 0, failuresBefore, "\(name): the fetch failed")
            XCTAssertLessThan(worst, 0.2, "\(name): a known kid waited (fetch timeout 1 s)")
            XCTAssertNil(verifier.check(known), name)
        }
        let stats = try XCTUnwrap(r.stats(issuer: RemoteKit.issuer))
        XCTAssertEqual(stats.failures["timeout"], 2, "\(stats.failures)")
        XCTAssertEqual(stats.keysLoaded, 1)
        r.stop()
    }
}
