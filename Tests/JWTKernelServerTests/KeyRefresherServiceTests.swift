import JWTKernel
import JWTKernelRemote
import JWTKernelServer
import JWTKernelTestSupport
import Logging
import Metrics
import MetricsTestKit
import ServiceLifecycle
import XCTest

/// `KeyRefresherService` with real components: the loopback JWKS server, swift-service-lifecycle's
/// `ServiceGroup`, swift-log with a collecting handler, swift-metrics' `TestMetrics`.
final class KeyRefresherServiceTests: XCTestCase {
    var server: LoopbackServer!

    override func setUpWithError() throws {
        server = try LoopbackServer()
        server.serve("/jwks", json: ServerKit.jwks(["k1", "k2"]), headers: ["Cache-Control": "max-age=600"])
    }

    override func tearDown() { server.stop() }

    func makeRefresher(path: String = "/jwks") throws -> (KeyStore, KeyRefresher) {
        let store = KeyStore()
        let refresher = KeyRefresher(store: store, policy: ServerKit.fastPolicy)
        refresher.add(
            issuer: ServerKit.issuer,
            source: try HTTPKeySource(url: server.url(path), configuration: HTTPKeySourceConfiguration()))
        return (store, refresher)
    }

    func testRunReturnsOnCancellation() async throws {
        let (_, refresher) = try makeRefresher()
        let service = KeyRefresherService(refresher: refresher, metricsFactory: nil)
        let task = Task { try await service.run() }
        let loaded = await ServerKit.eventually(10) { refresher.stats(issuer: ServerKit.issuer)?.hasKeys == true }
        XCTAssertTrue(loaded)
        XCTAssertTrue(refresher.isRunning)
        task.cancel()
        try await task.value
        XCTAssertFalse(refresher.isRunning)
    }

    func testRunReturnsOnGracefulShutdownThroughAServiceGroup() async throws {
        let (_, refresher) = try makeRefresher()
        let service = KeyRefresherService(refresher: refresher, metricsFactory: nil)
        let group = ServiceGroup(
            configuration: .init(
                services: [service], logger: Logger(label: "group", factory: { _ in SwiftLogNoOpLogHandler() })))
        let task = Task { try await group.run() }
        let running = await ServerKit.eventually(10) { refresher.isRunning }
        XCTAssertTrue(running)
        await group.triggerGracefulShutdown()
        try await task.value
        XCTAssertFalse(refresher.isRunning)
    }

    func testFailingEndpointLogsAWarningWithMetadataAndCountsFailures() async throws {
        server.set("/down", ["status": 503, "body": "{}"])
        let (_, refresher) = try makeRefresher(path: "/down")
        let (logger, records) = CollectingLogHandler.logger()
        let metrics = TestMetrics()
        let service = KeyRefresherService(
            refresher: refresher, logger: logger, metricsFactory: metrics, metricsInterval: .milliseconds(20))
        let task = Task { try await service.run() }
        let warned = await ServerKit.eventually(10) {
            records.all.contains { $0.level == .warning && $0.metadata["jwtk.event"] == "fetch_failed" }
        }
        XCTAssertTrue(warned)
        let moved = await ServerKit.eventually(10) {
            metrics.counterTotal(
                label: "jwtk_key_fetch_failures_total",
                dimensions: [("issuer", ServerKit.issuer), ("reason", "http_status")]) >= 1
        }
        XCTAssertTrue(moved)
        task.cancel()
        try await task.value
        let warning = try XCTUnwrap(records.all.first { $0.metadata["jwtk.event"] == "fetch_failed" })
        XCTAssertEqual(warning.level, .warning)
        XCTAssertEqual(warning.metadata["jwtk.issuer"], "\(ServerKit.issuer)")
        XCTAssertEqual(warning.metadata["jwtk.url"], "\(server.url("/down"))")
        XCTAssertEqual(warning.metadata["jwtk.reason"], "http_status")
        XCTAssertEqual(warning.metadata["jwtk.error"], "HTTP status 503")
        XCTAssertEqual(warning.metadata["jwtk.consecutive_failures"], "1")
        XCTAssertEqual(
            "\(warning.message)",
            "JWKS fetch failed; no keys for this issuer yet: its tokens are refused (keys_unavailable)",
            "no keys ever loaded: not 'serving the last good keys'")
        XCTAssertEqual(try metrics.expectGauge("jwtk_keys_available", [("issuer", ServerKit.issuer)]).lastValue, 0)
        XCTAssertEqual(
            Int(metrics.counterTotal(label: "jwtk_key_fetches_total", dimensions: [("issuer", ServerKit.issuer)])),
            refresher.stats(issuer: ServerKit.issuer)?.fetches)
    }

    func testRoutineRefreshIsDebugAndCountersMove() async throws {
        let (store, refresher) = try makeRefresher()
        let verifier = MultiIssuerVerifier(store: store, issuers: [IssuerConfiguration(issuer: ServerKit.issuer)])
        let counters = VerificationCounters(for: verifier)
        let (logger, records) = CollectingLogHandler.logger()
        let metrics = TestMetrics()
        let service = KeyRefresherService(
            refresher: refresher, logger: logger, metricsFactory: metrics, metricsInterval: .milliseconds(20),
            verificationCounters: counters)
        let task = Task { try await service.run() }
        let loaded = await ServerKit.eventually(10) { refresher.stats(issuer: ServerKit.issuer)?.hasKeys == true }
        XCTAssertTrue(loaded)

        XCTAssertEqual(try counters.verify(ServerKit.token(server, kid: "k1"), with: verifier).subject, "u")
        XCTAssertEqual(try counters.verify(ServerKit.token(server, kid: "k2"), with: verifier).subject, "u")
        XCTAssertThrowsError(try counters.verify(ServerKit.token(server, kid: "k1") + "x", with: verifier))
        XCTAssertThrowsError(
            try counters.verify(ServerKit.token(server, kid: "k1", iss: "https://other.test"), with: verifier))
        struct Claims: Decodable { var sub: String; var exp: NumericDate }
        let typed = try counters.verify(ServerKit.token(server, kid: "k2"), as: Claims.self, with: verifier)
        XCTAssertEqual(typed.exp.secondsSince1970, 4_000_000_000)

        let reported = await ServerKit.eventually(10) {
            metrics.counterTotal(
                label: "jwtk_verifications_total", dimensions: [("issuer", ServerKit.issuer), ("result", "ok")]) == 3
                && metrics.counterTotal(label: "jwtk_verifications_total", dimensions: [("result", "unknown_issuer")])
                    == 1
                && metrics.counterTotal(label: "jwtk_verifications_total", dimensions: [("issuer", "rejected")]) == 2
        }
        XCTAssertTrue(reported, "\(counters.snapshot())")
        XCTAssertEqual(metrics.counterTotal(label: "jwtk_key_fetches_total"), 1)
        XCTAssertEqual(try metrics.expectGauge("jwtk_keys_loaded", [("issuer", ServerKit.issuer)]).lastValue, 2)
        XCTAssertEqual(try metrics.expectGauge("jwtk_keys_available", [("issuer", ServerKit.issuer)]).lastValue, 1)

        // An explicit refresh, awaited; the counter moves by exactly one (deltas, not totals, are added).
        let refreshed = await service.refresh(issuer: ServerKit.issuer)
        XCTAssertTrue(refreshed)
        let unknown = await service.refresh(issuer: "https://nobody.test")
        XCTAssertFalse(unknown)
        let twice = await ServerKit.eventually(10) { metrics.counterTotal(label: "jwtk_key_fetches_total") == 2 }
        XCTAssertTrue(twice)
        XCTAssertEqual(server.requests("/jwks"), 2)

        task.cancel()
        try await task.value
        let refreshes = records.all.filter { $0.metadata["jwtk.event"] == "keys_refreshed" }
        XCTAssertEqual(refreshes.count, 2)
        XCTAssertTrue(refreshes.allSatisfy { $0.level == .debug })
        XCTAssertEqual(refreshes.first?.metadata["jwtk.keys_loaded"], "2")
        XCTAssertFalse(records.all.contains { $0.level >= .warning })
    }

    func testStaleAndWithdrawnKeysAreWarnedThroughTheObserver() throws {
        // Driven by hand (no thread) on a manual clock: KeyRefresher.observe(_:) feeding Logger.log(_:).
        let clock = ManualTestClock()
        var policy = ServerKit.fastPolicy
        policy.maxStaleness = 1200
        let refresher = KeyRefresher(store: KeyStore(), policy: policy, clock: clock)
        refresher.add(issuer: ServerKit.issuer, source: try HTTPKeySource(url: server.url("/jwks")))
        let (logger, records) = CollectingLogHandler.logger()
        refresher.observe { logger.log($0) }
        XCTAssertEqual(refresher.refreshDue(), 1)
        server.set("/jwks", ["status": 500, "body": "{}"])
        clock.advance(601)  // past max-age=600: stale, and the refresh due fails
        refresher.refreshDue()
        clock.advance(600)  // past maxStaleness since the last success: withdrawn
        refresher.refreshDue()
        let events = records.all.compactMap { $0.metadata["jwtk.event"].map { "\($0)" } }
        XCTAssertTrue(events.contains("keys_stale"), "\(events)")
        XCTAssertTrue(events.contains("keys_withdrawn"), "\(events)")
        let failed = try XCTUnwrap(records.all.first { $0.metadata["jwtk.event"] == "fetch_failed" })
        XCTAssertEqual("\(failed.message)", "JWKS fetch failed; serving the last good keys", "keys were loaded before")
        let withdrawn = try XCTUnwrap(records.all.first { $0.metadata["jwtk.event"] == "keys_withdrawn" })
        XCTAssertEqual(withdrawn.level, .warning)
        XCTAssertEqual(withdrawn.metadata["jwtk.issuer"], "\(ServerKit.issuer)")
        refresher.observe(nil)
    }
}

/// A refresher clock moved by hand.
final class ManualTestClock: RefreshClock, @unchecked Sendable {
    // Safety: `time` is read and written only under `lock`.
    private let lock = NSLock()
    private var time: Double = 1000
    func now() -> Double { lock.withLock { time } }
    func advance(_ seconds: Double) { lock.withLock { time += seconds } }
}
