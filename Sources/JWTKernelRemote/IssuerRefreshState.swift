import JWTKernel
import Synchronization

/// One issuer's refresh schedule and counters. Everything but the two atomics
/// is read and written only under the refresher's lock; the atomics are what
/// a verifying thread touches when it reports an unknown kid.
// Safety: @unchecked because every `var` is read and written only under the refresher's lock
// (RefresherSignal.withLock); verifying threads touch only the two atomics.
final class IssuerRefreshState: UnknownKidListener, @unchecked Sendable {
    let issuer: String
    let source: any KeySource
    /// Keys configured locally, published with every fetched set (and alone before the first).
    let localKeys: JWKSet?
    /// This issuer's schedule (cooldown, freshness clamp, staleness, backoff).
    let policy: RefreshPolicy
    private let signal: RefresherSignal

    /// Set by a verifying thread, cleared by the refresher after the fetch it caused.
    let unknownKidPending = Atomic<Bool>(false)
    let unknownKidSuppressed = AtomicCounter()

    // Guarded by the refresher's lock.
    var etag: String?
    var inFlight = false
    var nextAttemptAt: Double
    var lastAttemptAt: Double?
    var lastSuccessAt: Double?
    var freshUntil: Double?
    var hasKeys = false
    var isStale = false
    var stats: KeySourceStats

    init(
        issuer: String, source: any KeySource, localKeys: JWKSet?, policy: RefreshPolicy, signal: RefresherSignal,
        now: Double
    ) {
        self.issuer = issuer
        self.policy = policy
        self.source = source
        self.localKeys = localKeys
        self.signal = signal
        self.nextAttemptAt = now
        self.stats = KeySourceStats(issuer: issuer)
    }

    /// Hot path (a verifying thread): never waits on the network. The first
    /// report wakes the refresher; later ones, until that refresh is done, are
    /// only counted.
    func unknownKid() {
        if unknownKidPending.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        {
            signal.signal()
        } else {
            unknownKidSuppressed.increment()
        }
    }

    /// Under the lock: whether a fetch should start now.
    func isDue(now: Double, cooldown: Double) -> Bool {
        guard !inFlight else { return false }
        if now >= nextAttemptAt { return true }
        return unknownKidPending.load(ordering: .acquiring) && now >= (lastAttemptAt ?? -.infinity) + cooldown
    }

    /// Under the lock: the next moment something is due for this issuer.
    func deadline(cooldown: Double, maxStaleness: Double) -> Double {
        // A fetch in flight on another thread signals when it ends.
        if inFlight { return .infinity }
        var next = nextAttemptAt
        if unknownKidPending.load(ordering: .acquiring) { next = min(next, (lastAttemptAt ?? -.infinity) + cooldown) }
        if hasKeys, !isStale, let freshUntil { next = min(next, freshUntil) }
        if hasKeys, let lastSuccessAt { next = min(next, lastSuccessAt + maxStaleness) }
        return next
    }
}
