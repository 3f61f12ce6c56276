import JWTKernelRemote
import Metrics

/// The refresher's `KeySourceStats` and a `VerificationCounters` table reported to swift-metrics: each
/// metric is created once (the first time its issuer, reason or result appears), and counters are
/// incremented by the delta since the last report. Used only on `KeyRefresherService`'s task (not
/// thread-safe; not on any verification path).
final class RefresherMetrics {
    let factory: any MetricsFactory
    let prefix: String

    private struct IssuerMetrics {
        var fetches: Counter
        var notModified: Counter
        var unknownKidRefreshes: Counter
        var unknownKidSuppressed: Counter
        var staleServed: Counter
        var failures: [String: Counter] = [:]
        var documentFetches: Counter?
        var documentFailures: [String: Counter] = [:]
        var keysLoaded: Gauge
        var keysRejected: Gauge
        var available: Gauge
        var stale: Gauge
        var consecutiveFailures: Gauge
        var lastSuccessUnix: Gauge
        var last: KeySourceStats?
    }

    private var issuers: [String: IssuerMetrics] = [:]
    private var verifications: [String: (counter: Counter, last: Int)] = [:]

    init(factory: any MetricsFactory, prefix: String) {
        self.factory = factory
        self.prefix = prefix
    }

    private func counter(_ name: String, _ dimensions: [(String, String)]) -> Counter {
        Counter(label: "\(prefix)_\(name)", dimensions: dimensions, factory: factory)
    }

    private func gauge(_ name: String, _ dimensions: [(String, String)]) -> Gauge {
        Gauge(label: "\(prefix)_\(name)", dimensions: dimensions, factory: factory)
    }

    func report(_ all: [KeySourceStats], _ counters: VerificationCounters?) {
        for stats in all { report(stats) }
        guard let counters else { return }
        for (issuer, result, count) in counters.snapshot() {
            let key = issuer + "\u{0}" + result
            var entry =
                verifications[key]
                ?? (counter("verifications_total", [("issuer", issuer), ("result", result)]), 0)
            if count > entry.last { entry.counter.increment(by: count - entry.last) }
            entry.last = count
            verifications[key] = entry
        }
    }

    private func report(_ s: KeySourceStats) {
        let d = [("issuer", s.issuer)]
        var m =
            issuers[s.issuer]
            ?? IssuerMetrics(
                fetches: counter("key_fetches_total", d), notModified: counter("key_not_modified_total", d),
                unknownKidRefreshes: counter("key_unknown_kid_refreshes_total", d),
                unknownKidSuppressed: counter("key_unknown_kid_suppressed_total", d),
                staleServed: counter("key_stale_served_total", d), keysLoaded: gauge("keys_loaded", d),
                keysRejected: gauge("keys_rejected", d), available: gauge("keys_available", d),
                stale: gauge("keys_stale", d), consecutiveFailures: gauge("key_consecutive_failures", d),
                lastSuccessUnix: gauge("key_last_success_unix_seconds", d))
        let last = m.last
        Self.add(m.fetches, s.fetches, last?.fetches ?? 0)
        Self.add(m.notModified, s.notModified, last?.notModified ?? 0)
        Self.add(m.unknownKidRefreshes, s.unknownKidRefreshes, last?.unknownKidRefreshes ?? 0)
        Self.add(m.unknownKidSuppressed, s.unknownKidSuppressed, last?.unknownKidSuppressed ?? 0)
        Self.add(m.staleServed, s.staleServed, last?.staleServed ?? 0)
        for (reason, n) in s.failures {
            let c = m.failures[reason] ?? counter("key_fetch_failures_total", d + [("reason", reason)])
            m.failures[reason] = c
            Self.add(c, n, last?.failures[reason] ?? 0)
        }
        if let doc = s.discovery {
            let c = m.documentFetches ?? counter("discovery_fetches_total", d)
            m.documentFetches = c
            Self.add(c, doc.fetches, last?.discovery?.fetches ?? 0)
            for (reason, n) in doc.failures {
                let c = m.documentFailures[reason] ?? counter("discovery_failures_total", d + [("reason", reason)])
                m.documentFailures[reason] = c
                Self.add(c, n, last?.discovery?.failures[reason] ?? 0)
            }
        }
        m.keysLoaded.record(s.hasKeys ? s.keysLoaded : 0)
        m.keysRejected.record(s.keysRejected)
        m.available.record(s.hasKeys ? 1 : 0)
        m.stale.record(s.isStale ? 1 : 0)
        m.consecutiveFailures.record(s.consecutiveFailures)
        if let t = s.lastSuccessUnix { m.lastSuccessUnix.record(t) }
        m.last = s
        issuers[s.issuer] = m
    }

    private static func add(_ counter: Counter, _ now: Int, _ before: Int) {
        if now > before { counter.increment(by: now - before) }
    }
}
