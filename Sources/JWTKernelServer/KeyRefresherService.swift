import Dispatch
public import JWTKernelRemote
public import Logging
public import Metrics
public import ServiceLifecycle

/// A `KeyRefresher` as a swift-service-lifecycle `Service`, for a `ServiceGroup` (Hummingbird's
/// application, or your own):
///
///     let refresher = KeyRefresher(store: store)
///     try refresher.add(preset: .apple)
///     let service = KeyRefresherService(refresher: refresher, logger: logger)
///     let group = ServiceGroup(services: [service, app], gracefulShutdownSignals: [.sigterm], logger: logger)
///     try await group.run()
///
/// `run()` starts the refresher's thread (it fetches on its own thread, as always), then waits without
/// blocking a thread of the cooperative pool: it sleeps on the task, waking every `metricsInterval` to
/// report metrics, until a graceful shutdown or the task's cancellation; then it stops the thread (the
/// join runs off the pool) and returns within `KeyRefresher.stop()`'s bound: 1 s, even with every key URL
/// hanging (fetches in progress are cut, none starts afterwards, and a cut fetch is not logged as a failure).
///
/// Logs: the refresher's events (`KeyRefresherEvent`) through `logger` as they happen, on the refresher's
/// thread: failures, stale keys and withdrawals at `warning`, refreshes at `debug` (`info` when an unknown
/// kid caused them), with `jwtk.issuer`, `jwtk.url`, `jwtk.reason` metadata.
///
/// Metrics (swift-metrics, labels prefixed with `metricsPrefix`, dimension `issuer`), from
/// `KeySourceStats` on the service's task, each created once and incremented by deltas:
/// counters `_key_fetches_total`, `_key_fetch_failures_total{reason}`, `_key_not_modified_total`,
/// `_key_unknown_kid_refreshes_total`, `_key_unknown_kid_suppressed_total`, `_key_stale_served_total`,
/// `_discovery_fetches_total`, `_discovery_failures_total{reason}`; gauges `_keys_loaded`, `_keys_rejected`,
/// `_keys_available`, `_keys_stale`, `_key_consecutive_failures`, `_key_last_success_unix_seconds`; and with
/// `verificationCounters`, `_verifications_total{issuer,result}` (`result`: `ok` or the error code's name).
public struct KeyRefresherService: Service, Sendable {
    public let refresher: KeyRefresher
    public let logger: Logger
    /// Where metrics go: nil for none.
    public let metricsFactory: (any MetricsFactory)?
    public let metricsPrefix: String
    /// How often the statistics are read and reported (and once more when `run()` ends).
    public let metricsInterval: Duration
    public let verificationCounters: VerificationCounters?

    /// `logger`: no-op by default. `metricsFactory`: the one `MetricsSystem` was bootstrapped with by
    /// default (itself a no-op until bootstrapped); nil for no metrics.
    public init(
        refresher: KeyRefresher, logger: Logger = .jwtKernelNoOp,
        metricsFactory: (any MetricsFactory)? = MetricsSystem.factory, metricsPrefix: String = "jwtk",
        metricsInterval: Duration = .seconds(10), verificationCounters: VerificationCounters? = nil
    ) {
        self.refresher = refresher
        self.logger = logger
        self.metricsFactory = metricsFactory
        self.metricsPrefix = metricsPrefix
        self.metricsInterval = metricsInterval
        self.verificationCounters = verificationCounters
    }

    public func run() async throws {
        let logger = self.logger
        refresher.observe { logger.log($0) }
        refresher.start()
        logger.debug("JWKS refresher started", metadata: ["jwtk.issuers": "\(refresher.allStats.count)"])
        let reporter = MetricsLoop(service: self)
        await cancelWhenGracefulShutdown {
            await reporter.run()
        }
        await Self.offPool { refresher.stop() }
        refresher.observe(nil)
        reporter.reportOnce()
        logger.debug("JWKS refresher stopped")
    }

    /// Fetches `issuer`'s keys now, whatever its schedule (`KeyRefresher.refreshNow(issuer:)`), and returns
    /// when the fetch is done: the fetch runs on a Dispatch thread, not on the cooperative pool. False if
    /// the issuer is not registered or a fetch for it is already running. Its outcome is logged as usual
    /// and shows in `refresher.stats(issuer:)`.
    @discardableResult
    public func refresh(issuer: String) async -> Bool {
        let refresher = self.refresher
        return await Self.offPool { refresher.refreshNow(issuer: issuer) }
    }

    /// Runs blocking work (a join, a fetch) on a global Dispatch queue and awaits it.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: work()) }
        }
    }
}

/// The service's metrics reporting: `RefresherMetrics` confined to one task at a time.
// Safety: @unchecked because `metrics` is used by `run()` and then by `reportOnce()` after `run()` has
// returned (sequentially, never concurrently).
private final class MetricsLoop: @unchecked Sendable {
    let refresher: KeyRefresher
    let counters: VerificationCounters?
    let interval: Duration
    let metrics: RefresherMetrics?

    init(service: KeyRefresherService) {
        refresher = service.refresher
        counters = service.verificationCounters
        interval = service.metricsInterval
        metrics = service.metricsFactory.map { RefresherMetrics(factory: $0, prefix: service.metricsPrefix) }
    }

    func reportOnce() { metrics?.report(refresher.allStats, counters) }

    /// Reports every `interval` until cancelled (without metrics: just waits).
    func run() async {
        while !Task.isCancelled {
            reportOnce()
            do { try await Task.sleep(for: metrics == nil ? .seconds(3600) : interval) } catch { return }
        }
    }
}

extension KeyRefresherService: CustomStringConvertible {
    /// What service-lifecycle logs for the service (it logs `"\(service)"`): its name and issuers, not a dump
    /// of its stored properties.
    public var description: String {
        "KeyRefresherService(issuers: \(refresher.allStats.map(\.issuer)))"
    }
}
