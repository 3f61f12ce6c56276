import JWTKernel
import Synchronization

/// One issuer's refresh schedule and counters. Everything but the two atomics
/// is read and written only under the refresher's lock; the atomics are what
/// a verifying thread touches when it reports an unknown kid.
// Safety: @unchecked because every `var` is read and written only under the refresher's lock
// (RefresherSignal.withLock); verifying threads touch only the two atomics.
final class IssuerRefreshState: UnknownKidListener, @unchecked Sendable {
    let issuer: String
    /// Where the keys are fetched. Under the lock: with discovery it is built from the document's
    /// jwks_uri (nil until the first good document) and replaced when a refreshed document names another.
    var source: (any KeySource)?
    /// The discovery document's schedule, for an issuer registered by discovery (under the lock).
    var discovery: DiscoveryState?
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
        issuer: String, source: (any KeySource)?, discovery: OpenIDDiscovery? = nil, localKeys: JWKSet?,
        policy: RefreshPolicy, signal: RefresherSignal, now: Double
    ) {
        self.issuer = issuer
        self.policy = policy
        self.source = source
        self.discovery = discovery.map { DiscoveryState($0, now: now) }
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

    /// What one pass fetches for an issuer: its keys (on schedule, or for an unknown kid), its
    /// discovery document, or both (the document first).
    struct Due {
        var keys: Bool
        var byUnknownKid: Bool
        var document: Bool
    }

    /// Under the lock: what should be fetched now (nil: nothing).
    func due(now: Double) -> Due? {
        guard !inFlight else { return nil }
        let scheduled = now >= nextAttemptAt
        let byUnknownKid =
            !scheduled && unknownKidPending.load(ordering: .acquiring)
            && now >= (lastAttemptAt ?? -.infinity) + policy.unknownKidCooldown
        let keys = scheduled || byUnknownKid
        let document = discovery?.isDue(now: now, keysDue: keys) ?? false
        guard keys || document else { return nil }
        return Due(keys: keys, byUnknownKid: byUnknownKid, document: document)
    }

    /// Under the lock: the next moment something is due for this issuer.
    func deadline(cooldown: Double, maxStaleness: Double) -> Double {
        // A fetch in flight on another thread signals when it ends.
        if inFlight { return .infinity }
        var next = nextAttemptAt
        if unknownKidPending.load(ordering: .acquiring) { next = min(next, (lastAttemptAt ?? -.infinity) + cooldown) }
        if hasKeys, !isStale, let freshUntil { next = min(next, freshUntil) }
        if hasKeys, let lastSuccessAt { next = min(next, lastSuccessAt + maxStaleness) }
        // Before the first good document it is fetched with the keys, on their schedule.
        if let discovery, discovery.jwksURI != nil { next = min(next, discovery.nextAttemptAt) }
        return next
    }
}
