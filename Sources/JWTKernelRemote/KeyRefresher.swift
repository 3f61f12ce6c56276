import JWTKernel

#if canImport(Glibc)
import Glibc
#endif

/// Keeps issuers' keys in a `KeyStore` fresh from their sources.
///
/// - Freshness: `Cache-Control: max-age` clamped to the policy's range (10 min
///   without one), refreshed ahead of expiry, with `If-None-Match`.
/// - Unknown kid: one refresh, single-flight per source, at most one per
///   cooldown; the token that named it fails at once with `unknown_kid`, and
///   tokens with known kids never wait for anything.
/// - Failure (error, timeout, garbage): the last good keys stay published, then
///   are marked stale when their lifetime ends, and withdrawn after
///   `maxStaleness`; retries back off exponentially; the reason is recorded.
/// - OpenID Connect discovery (`add(discovery:)`): the issuer's document is one more
///   fetch of the same issuer, in the same pass and on its own slower schedule; the
///   keys keep every rule above, fetched from the last good document's `jwks_uri`.
///
/// Threads: none until `start()`, which starts exactly one (call it after the
/// host forks its workers). Without `start()`, the host or a test drives it by
/// calling `refreshDue()`, on its own schedule and clock.
///
/// Stopping (`stop()`) cuts every fetch in progress and returns within 1 s (milliseconds in practice),
/// whatever the key URLs do; no fetch starts after it, and the keys published stay as they are.
// Safety: @unchecked because `states` and `thread` are read and written only under `signal`'s lock (and so
// is every `var` of the states); everything else is immutable or locks itself (`fetchStop`).
public final class KeyRefresher: @unchecked Sendable {
    public let store: KeyStore
    public let policy: RefreshPolicy
    public let clock: any RefreshClock
    let wallClock: any JWTClock
    let signal = RefresherSignal()
    /// Held around every parse and store write made outside `signal`'s lock (see `holdForFork`).
    let gate = RefresherSignal()
    /// Set by `stop()`, cleared by `start()`: checked before every fetch, and cuts the transfers in progress.
    let fetchStop = FetchStop()
    // Guarded by `signal`'s lock.
    private var states: [IssuerRefreshState] = []
    private var thread: pthread_t?
    /// The observer and the events waiting for it (queued only while there is one); delivered
    /// outside the lock by `deliverEvents()`.
    private var observer: (@Sendable (KeyRefresherEvent) -> Void)?
    private var pendingEvents: [KeyRefresherEvent] = []

    public init(
        store: KeyStore, policy: RefreshPolicy = RefreshPolicy(), clock: any RefreshClock = MonotonicClock(),
        wallClock: any JWTClock = SystemClock()
    ) {
        self.store = store
        self.policy = policy
        self.clock = clock
        self.wallClock = wallClock
    }

    deinit { stop() }

    /// Registers `issuer` in the store (its tokens are `keys_unavailable` until
    /// the first fetch succeeds) and schedules its first fetch now. `localKeys`
    /// (a locally configured secret) are published at once and merged into
    /// every fetched set. `policy`: this issuer's own schedule (default: the refresher's);
    /// its `maxIdleWait` is ignored (the thread's is the refresher's).
    public func add(issuer: String, source: any KeySource, localKeys: JWKSet? = nil, policy: RefreshPolicy? = nil) {
        register(
            IssuerRefreshState(
                issuer: issuer, source: source, localKeys: localKeys, policy: policy ?? self.policy, signal: signal,
                now: clock.now()),
            localKeys: localKeys)
    }

    /// Registers `discovery.issuer` with its keys found by OpenID Connect discovery: its first pass
    /// fetches the discovery document, checks its `issuer`, then fetches the keys at its `jwks_uri`;
    /// later the document is refreshed on `discovery.documentPolicy`'s schedule and the keys on
    /// `policy`'s (see `OpenIDDiscovery`). Until a document and keys have loaded, the issuer's tokens are
    /// `keys_unavailable`; a key fetch that finds no good document yet fails with the document's error.
    public func add(discovery: OpenIDDiscovery, localKeys: JWKSet? = nil, policy: RefreshPolicy? = nil) {
        register(
            IssuerRefreshState(
                issuer: discovery.issuer, source: nil, discovery: discovery, localKeys: localKeys,
                policy: policy ?? self.policy, signal: signal, now: clock.now()),
            localKeys: localKeys)
    }

    private func register(_ state: IssuerRefreshState, localKeys: JWKSet?) {
        signal.withLock {
            states.removeAll { $0.issuer == state.issuer }
            states.append(state)
        }
        store.register(issuer: state.issuer, unknownKidListener: state)
        if let localKeys { store.publish(localKeys, forIssuer: state.issuer) }
        signal.signal()
    }

    // MARK: Thread

    /// Starts the one background thread (idempotent). It sleeps until the next
    /// deadline or an unknown-kid report, fetches what is due, and repeats.
    /// It holds a reference to the refresher until `stop()`.
    public func start() {
        signal.withLock {
            guard thread == nil else { return }
            fetchStop.resume()
            var id = pthread_t()
            // Safety: the retained reference is released by the thread when its loop ends.
            let context = Unmanaged.passRetained(self).toOpaque()
            let started = pthread_create(
                &id, nil,
                { raw in
                    guard let raw else { return nil }
                    Unmanaged<KeyRefresher>.fromOpaque(raw).takeRetainedValue().runLoop()
                    return nil
                }, context)
            if started == 0 { thread = id } else { Unmanaged<KeyRefresher>.fromOpaque(context).release() }
        }
    }

    /// Stops the thread and waits for it: returns within 1 s (milliseconds in practice), even with every key
    /// URL hanging. Every fetch in progress is cut at once (the thread's, and `refreshNow` callers' on other
    /// threads), none starts afterwards (`refreshDue()` and `refreshNow(issuer:)` fetch nothing until
    /// `start()`), and the keys published stay as they are: a cut fetch publishes nothing, and is neither
    /// counted as a failure nor reported as one (no `fetchFailed` event), so no key is marked stale for it.
    /// Its one wait is for the thread to leave what it is doing: a key parse, a store write, or the observer.
    public func stop() {
        let running: pthread_t? = signal.withLock {
            fetchStop.stop()
            defer { thread = nil }
            return thread
        }
        guard let running else { return }
        signal.signal()
        if pthread_equal(running, pthread_self()) == 0 { pthread_join(running, nil) } else { pthread_detach(running) }
    }

    public var isRunning: Bool { signal.withLock { thread != nil } }

    /// For a host that may fork while the thread runs (JWTKernelC's pthread_atfork handlers):
    /// waits until the thread is outside every key parse and store write, and keeps it out until
    /// `releaseAfterFork()`, so a child never inherits a lock that thread held. (A transfer in
    /// progress is not waited for; the child never touches its curl handle.) Call both from the
    /// same thread; in a child, `releaseAfterFork()` only unlocks, and the refresher must then be
    /// abandoned: its thread does not exist there.
    public func holdForFork() {
        gate.lock()
        signal.lock()
    }

    public func releaseAfterFork() {
        signal.unlock()
        gate.unlock()
    }

    /// Wakes the thread to re-read the clock (tests that move an injected clock).
    public func wake() { signal.signal() }

    // MARK: Events

    /// Sets (or, with nil, removes) the one observer of this refresher's events: each fetch's outcome,
    /// keys turning stale, keys withdrawn, discovery documents (`KeyRefresherEvent`). It is called on the
    /// thread that did the work (the refresher's, or a `refreshNow` caller's), never under the
    /// refresher's lock, one event at a time per thread; it must not block for long (a log call).
    public func observe(_ observer: (@Sendable (KeyRefresherEvent) -> Void)?) {
        signal.withLock {
            self.observer = observer
            if observer == nil { pendingEvents.removeAll() }
        }
    }

    /// Under the lock: queues `event` if someone observes.
    func emitLocked(_ event: @autoclosure () -> KeyRefresherEvent) {
        if observer != nil { pendingEvents.append(event()) }
    }

    /// Hands the queued events to the observer, outside the lock.
    func deliverEvents() {
        let (events, observer) = signal.withLock {
            () -> ([KeyRefresherEvent], (@Sendable (KeyRefresherEvent) -> Void)?) in
            guard !pendingEvents.isEmpty else { return ([], nil) }
            defer { pendingEvents.removeAll(keepingCapacity: true) }
            return (pendingEvents, self.observer)
        }
        guard let observer else { return }
        for event in events { observer(event) }
    }

    /// The refresher thread's name, as `ps -L` and /proc/PID/task/TID/comm show it.
    public static let threadName = "jwtk-refresh"

    /// Names the calling thread through procfs (`pthread_setname_np` is a GNU
    /// extension the Glibc module does not show; `prctl` is variadic). Best effort.
    private static func nameCurrentThread() {
        let fd = open("/proc/thread-self/comm", O_WRONLY)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var name = Array(threadName.utf8)
        _ = write(fd, &name, name.count)
    }

    private func runLoop() {
        Self.nameCurrentThread()
        while true {
            refreshDue()
            let done: Bool = signal.withLock {
                if fetchStop.isStopped { return true }
                let now = clock.now()
                let next = states.map {
                    $0.deadline(cooldown: $0.policy.unknownKidCooldown, maxStaleness: $0.policy.maxStaleness)
                }.min()
                let wait = min(max(0, (next ?? .infinity) - now), policy.maxIdleWait)
                if wait > 0 { signal.waitLocked(seconds: wait) }
                return fetchStop.isStopped
            }
            if done { return }
        }
    }

    // MARK: One pass

    /// Does everything due now on the calling thread: marks keys stale or
    /// withdraws them when their time is up, and fetches (one at a time) every
    /// issuer whose refresh is due. Returns the number of fetches made.
    /// After `stop()` (until `start()`) it does nothing, and a `stop()` meanwhile ends it after the fetch
    /// in progress, which it cuts.
    @discardableResult
    public func refreshDue() -> Int {
        var fetches = 0
        while let (state, due) = nextDue() {
            perform(state, due)
            fetches += (due.keys ? 1 : 0) + (due.document ? 1 : 0)
        }
        deliverEvents()  // what the last pass's expire() decided
        return fetches
    }

    /// Fetches `issuer` now, whatever its schedule (a host's explicit reload); with discovery, its
    /// document first.
    /// Returns false if it is not registered, a fetch for it is already running, or the refresher is stopped.
    @discardableResult
    public func refreshNow(issuer: String) -> Bool {
        let found: (IssuerRefreshState, Bool)? = signal.withLock {
            guard !fetchStop.isStopped, let s = states.first(where: { $0.issuer == issuer }), !s.inFlight else {
                return nil
            }
            s.inFlight = true
            return (s, s.discovery != nil)
        }
        guard let (state, discovery) = found else { return false }
        perform(state, .init(keys: true, byUnknownKid: false, document: discovery))
        return true
    }

    /// Under the lock: time-based transitions, then one due issuer marked in flight; nothing once stopped
    /// (the keys published then stay as they are: not even marked stale).
    private func nextDue() -> (IssuerRefreshState, IssuerRefreshState.Due)? {
        signal.withLock {
            guard !fetchStop.isStopped else { return nil }
            let now = clock.now()
            for s in states { expire(s, now: now) }
            for s in states {
                guard let due = s.due(now: now) else { continue }
                s.inFlight = true
                return (s, due)
            }
            return nil
        }
    }

    /// Under the lock: stale past freshness, withdrawn past max staleness.
    private func expire(_ s: IssuerRefreshState, now: Double) {
        guard !s.inFlight, s.hasKeys, let lastSuccess = s.lastSuccessAt else { return }
        if now >= lastSuccess + s.policy.maxStaleness {
            s.hasKeys = false
            s.isStale = false
            s.etag = nil
            s.stats.lastError = "keys withdrawn: no successful refresh for \(Int(s.policy.maxStaleness)) s"
            emitLocked(KeyRefresherEvent(kind: .keysWithdrawn, issuer: s.issuer, message: s.stats.lastError))
            if let local = s.localKeys {
                store.publish(local, forIssuer: s.issuer)
            } else {
                store.withdrawKeys(forIssuer: s.issuer)
            }
        } else if let fresh = s.freshUntil, now >= fresh, !s.isStale {
            s.isStale = true
            store.setStale(true, forIssuer: s.issuer)
            emitLocked(
                KeyRefresherEvent(
                    kind: .keysStale, issuer: s.issuer, message: s.stats.lastError ?? "no successful refresh"))
        }
    }

    /// The fetch, outside the lock; parsing the document (the EVP keys) happens
    /// here too, on this thread, off every verifying thread.
    /// With discovery, the document first (KeyRefresher+Discovery.swift), so keys due in the same pass
    /// come from the jwks_uri it names.
    private func perform(_ s: IssuerRefreshState, _ due: IssuerRefreshState.Due) {
        defer { deliverEvents() }
        if due.document { refreshDocument(s) }
        guard due.keys else {
            signal.withLock { finishLocked(s) }
            return
        }
        let started = signal.withLock {
            () -> (String?, Double, (any KeySource)?, KeySourceError?)? in
            // A stop during the document's fetch: the keys' fetch does not start.
            guard !fetchStop.isStopped else {
                finishLocked(s)
                return nil
            }
            let now = clock.now()
            s.lastAttemptAt = now
            s.stats.lastAttemptAt = now
            s.stats.lastAttemptUnix = wallClock.now()
            s.stats.fetches += 1
            if due.byUnknownKid { s.stats.unknownKidRefreshes += 1 }
            return (s.etag, now, s.source, s.discovery.map(\.keyURLUnavailable))
        }
        guard let (etag, start, source, noSource) = started else { return }
        let result: Result<(KeyFetch, JWKSet?), KeySourceError>
        // The transfer runs outside `gate` (a fork never waits for the network); parse and publish inside it.
        let transfer = Result { () throws(KeySourceError) in
            guard let source else {
                throw noSource ?? KeySourceError(.other, "no key source")
            }
            return try fetch(source, ifNoneMatch: etag)
        }
        // Stopped meanwhile (the transfer cut, or done just before): nothing published, nothing recorded.
        if fetchStop.isStopped {
            signal.withLock { finishLocked(s) }
            return
        }
        gate.lock()
        defer { gate.unlock() }
        do throws(KeySourceError) {
            let fetched = try transfer.get()
            if case .document(let bytes, _) = fetched {
                result = .success((fetched, try KeyStore.parse(bytes)))
            } else if etag == nil {
                // "Not modified" is only meaningful for a document we hold.
                throw KeySourceError(.badDocument, "not modified, but no document is held")
            } else {
                result = .success((fetched, nil))
            }
        } catch {
            result = .failure(error)
        }
        // Published outside the refresher's lock, so the replaced keys are never freed under it (a verifying
        // thread reporting an unknown kid takes that lock). No lock needed: this issuer is in flight, so
        // expire() and every other fetch leave it alone until the bookkeeping below.
        if case .success(let (_, keys)) = result {
            if let keys {
                store.publish(s.localKeys.map(keys.merging) ?? keys, forIssuer: s.issuer)
            } else {
                store.setStale(false, forIssuer: s.issuer)  // a 304 renews the keys held
            }
        }
        signal.withLock {
            let now = max(clock.now(), start)
            switch result {
            case .success(let (fetched, keys)):
                if let keys {
                    s.stats.keysLoaded = keys.keys.count
                    s.stats.keysRejected = keys.rejected.count
                    s.stats.rejectedReasons = keys.rejected.map(\.description)
                } else {
                    s.stats.notModified += 1
                }
                let lifetime = s.policy.lifetime(fetched.freshness.maxAge)
                s.etag = fetched.freshness.etag ?? (keys == nil ? s.etag : nil)
                s.hasKeys = true
                s.isStale = false
                s.lastSuccessAt = now
                s.freshUntil = now + lifetime
                s.nextAttemptAt = now + lifetime * s.policy.refreshAheadFraction  // both bounded (RefreshPolicy)
                s.stats.consecutiveFailures = 0
                s.stats.lastError = nil
                s.stats.lastSuccessAt = now
                s.stats.lastSuccessUnix = wallClock.now()
                emitLocked(
                    {
                        var event = KeyRefresherEvent(
                            kind: keys == nil ? .keysNotModified : .keysRefreshed, issuer: s.issuer,
                            url: source.map { String(describing: $0) })
                        event.keysLoaded = s.stats.keysLoaded
                        event.keysRejected = s.stats.keysRejected
                        event.byUnknownKid = due.byUnknownKid
                        return event
                    }())
            case .failure(let error):
                s.stats.failures[error.reason.rawValue, default: 0] += 1
                s.stats.consecutiveFailures += 1
                s.stats.lastError = error.description
                s.nextAttemptAt = now + s.policy.backoff(afterFailures: s.stats.consecutiveFailures)
                emitLocked(
                    {
                        var event = KeyRefresherEvent(
                            kind: .fetchFailed, issuer: s.issuer, url: source.map { String(describing: $0) },
                            reason: error.reason.rawValue, message: error.message)
                        event.consecutiveFailures = s.stats.consecutiveFailures
                        event.byUnknownKid = due.byUnknownKid
                        event.keysHeld = s.hasKeys
                        return event
                    }())
            }
            s.inFlight = false
            s.unknownKidPending.store(false, ordering: .releasing)
            expire(s, now: now)
            signal.signalLocked()  // the thread recomputes its deadline (this fetch may have run on another thread)
        }
    }

    /// A fetch `stop()` can cut: an HTTP source's transfers; any other source's fetch runs to its end.
    func fetch(_ source: any KeySource, ifNoneMatch etag: String?) throws(KeySourceError) -> KeyFetch {
        if let http = source as? HTTPKeySource { return try http.fetch(ifNoneMatch: etag, stop: fetchStop) }
        return try source.fetch(ifNoneMatch: etag)
    }

    /// Under the lock: `s` is out of flight with nothing (more) recorded: a document-only pass, or a fetch
    /// that did not start or was cut.
    private func finishLocked(_ s: IssuerRefreshState) {
        s.inFlight = false
        signal.signalLocked()
    }

    // MARK: Stats

    public func stats(issuer: String) -> KeySourceStats? {
        let snapshot: KeySourceStats? = signal.withLock {
            guard let s = states.first(where: { $0.issuer == issuer }) else { return nil }
            var stats = s.stats
            stats.unknownKidSuppressed = s.unknownKidSuppressed.current
            stats.hasKeys = s.hasKeys
            stats.isStale = s.isStale
            stats.nextAttemptAt = s.nextAttemptAt
            if let d = s.discovery {
                stats.discovery = d.stats
                stats.discovery?.jwksURI = d.jwksURI
                stats.discovery?.nextAttemptAt = d.jwksURI == nil ? s.nextAttemptAt : d.nextAttemptAt
            }
            return stats
        }
        guard var stats = snapshot else { return nil }
        stats.staleServed = store.entry(forIssuer: issuer)?.hooks.staleServed.current ?? 0
        return stats
    }

    public var allStats: [KeySourceStats] {
        let issuers = signal.withLock { states.map(\.issuer) }
        return issuers.compactMap { stats(issuer: $0) }
    }
}
