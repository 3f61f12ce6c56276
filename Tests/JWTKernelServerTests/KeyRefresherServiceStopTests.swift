import Foundation
import JWTKernel
import JWTKernelRemote
import JWTKernelServer
import JWTKernelTestSupport
import Logging
import ServiceLifecycle
import XCTest

/// A graceful shutdown of a `ServiceGroup` whose refresher's key URLs all accept the connection and never
/// answer (the loopback server's `hang` routes; fetch timeouts of 30 s): the group's run returns within
/// `KeyRefresher.stop()`'s 1 s bound (asserted under 2 s), no fetch starts afterwards, and the cut fetch
/// is not logged as a failure.
final class KeyRefresherServiceStopTests: XCTestCase {
    var server: LoopbackServer!

    override func setUpWithError() throws { server = try LoopbackServer() }
    override func tearDown() { server.stop() }

    func requests() -> Int { (server.command(["cmd": "log"])["requests"] as? [Any])?.count ?? 0 }

    func testGracefulShutdownWithEveryKeyURLHangingReturnsWithinTheBound() async throws {
        var config = HTTPKeySourceConfiguration()
        config.connectTimeout = 30
        config.totalTimeout = 30
        let refresher = KeyRefresher(store: KeyStore(), policy: ServerKit.fastPolicy)
        for name in ["a", "b"] {
            server.set("/\(name)", ["mode": "hang", "seconds": 60, "body": ServerKit.jwks(["k1"])])
            refresher.add(
                issuer: "https://\(name).test",
                source: try HTTPKeySource(url: server.url("/\(name)"), configuration: config))
        }
        let (logger, records) = CollectingLogHandler.logger()
        let service = KeyRefresherService(refresher: refresher, logger: logger, metricsFactory: nil)
        let group = ServiceGroup(
            configuration: .init(
                services: [service], logger: Logger(label: "group", factory: { _ in SwiftLogNoOpLogHandler() })))
        let task = Task { try await group.run() }
        let hanging = await ServerKit.eventually(10) { self.requests() >= 1 }
        XCTAssertTrue(hanging, "a fetch is hanging")
        let start = ContinuousClock.now
        await group.triggerGracefulShutdown()
        try await task.value
        let took = ContinuousClock.now - start
        print("ServiceGroup graceful shutdown with 2 issuers hanging: \(took)")
        XCTAssertLessThan(took, .seconds(2), "the service waited for a hanging fetch")
        XCTAssertFalse(refresher.isRunning)
        let after = requests()
        try await Task.sleep(for: .milliseconds(500))
        XCTAssertEqual(requests(), after, "a fetch started after the shutdown")
        XCTAssertFalse(records.all.contains { $0.metadata["jwtk.event"] == "fetch_failed" }, "a cut fetch was logged")
    }
}
