// What `KeyRefresher` must do, written out from its documentation (JWTKernelRemote/KeyRefresher.swift,
// RefreshPolicy.swift) for one issuer with the default policy: fetch when due (schedule, or an
// unknown kid after the cooldown); on success publish the parsed set, remember the ETag, schedule
// at 80% of max-age clamped to [60 s, 24 h] (10 min without one); on failure keep the keys and back
// off 1, 2, 4 ... 300 s; keys past their freshness are stale, past 24 h since the last success
// withdrawn. FuzzRemoteResponse compares the refresher's stats and the store with it after every step.
import FuzzSupport
@_spi(Internals) import JWTKernel
@_spi(Fuzzing) import JWTKernelRemote

struct RefresherModel {
    let policy = RefreshPolicy()
    var next: Double
    var lastAttempt: Double?
    var lastSuccess: Double?
    var freshUntil: Double?
    var hasKeys = false
    var stale = false
    var etag: String?
    var consecutiveFailures = 0
    var unknownKidPending = false
    var suppressed = 0
    var fetches = 0
    var notModified = 0
    var unknownKidRefreshes = 0
    /// The set the store must hold (descriptions of its keys), nil: none.
    var keys: [String]?
    /// A fetch published a new set since the last check (so the key objects may change).
    var published = false

    init(now: Double) { next = now }

    func lifetime(_ maxAge: Int64?) -> Double {
        min(max(maxAge.map(Double.init) ?? policy.defaultMaxAge, policy.minMaxAge), policy.maxMaxAge)
    }

    func backoff(_ n: Int) -> Double {
        var delay = policy.initialBackoff
        for _ in 1..<max(1, min(n, 40)) { delay *= 2 }
        return min(delay, policy.maxBackoff)
    }

    func isDue(_ now: Double) -> Bool {
        now >= next || (unknownKidPending && now >= (lastAttempt ?? -.infinity) + policy.unknownKidCooldown)
    }

    mutating func expire(_ now: Double) {
        guard hasKeys, let lastSuccess else { return }
        if now >= lastSuccess + policy.maxStaleness {
            hasKeys = false
            stale = false
            etag = nil
            keys = nil
        } else if let freshUntil, now >= freshUntil, !stale {
            stale = true
        }
    }

    /// One fetch the refresher made at `now`.
    mutating func apply(_ record: FetchRecord, now: Double, byUnknownKid: Bool) {
        lastAttempt = now
        fetches += 1
        if byUnknownKid { unknownKidRefreshes += 1 }
        require(
            record.sentETag == etag,
            "If-None-Match sent \(String(describing: record.sentETag)), expected \(String(describing: etag))")
        var outcome: (freshness: KeyFreshness, keys: JWKSet?)?
        switch record.result {
        case .success(.document(let bytes, let freshness)):
            if let set = try? KeyStore.parse(bytes) { outcome = (freshness, set) }
        case .success(.notModified(let freshness)):
            if record.sentETag != nil { outcome = (freshness, nil) }
        case .failure:
            break
        }
        if let (freshness, set) = outcome {
            if let set {
                keys = set.keys.map(\.description)
                published = true
            } else {
                notModified += 1
            }
            etag = freshness.etag ?? (set == nil ? etag : nil)
            hasKeys = true
            stale = false
            lastSuccess = now
            freshUntil = now + lifetime(freshness.maxAge)
            next = now + lifetime(freshness.maxAge) * policy.refreshAheadFraction
            consecutiveFailures = 0
        } else {
            consecutiveFailures += 1
            next = now + backoff(consecutiveFailures)
        }
        unknownKidPending = false
        expire(now)
    }

    /// `refreshDue()` at `now`: every fetch it made is in `records`.
    mutating func refreshDue(_ now: Double, _ records: ArraySlice<FetchRecord>) {
        var pending = records
        while true {
            expire(now)
            guard isDue(now) else { break }
            guard let record = pending.popFirst() else { invariantFailed("a refresh was due at \(now), none was made") }
            apply(record, now: now, byUnknownKid: !(now >= next))
        }
        require(pending.isEmpty, "\(pending.count) fetch(es) made at \(now) that were not due")
    }

    /// The refresher's stats and the store's entry agree with the model.
    func check(_ refresher: KeyRefresher, _ store: KeyStore, issuer: String, previousKeys: inout [ObjectIdentifier]?) {
        guard let stats = refresher.stats(issuer: issuer), let entry = store.entry(forIssuer: issuer) else {
            invariantFailed("the issuer lost its stats or its store entry")
        }
        func same<T: Equatable>(_ got: T, _ want: T, _ what: String) {
            require(got == want, "\(what): \(got), the model says \(want)")
        }
        same(stats.hasKeys, hasKeys, "hasKeys")
        same(stats.isStale, stale, "isStale")
        same(stats.nextAttemptAt, next, "nextAttemptAt")
        same(stats.consecutiveFailures, consecutiveFailures, "consecutiveFailures")
        same(stats.fetches, fetches, "fetches")
        same(stats.notModified, notModified, "notModified")
        same(stats.unknownKidRefreshes, unknownKidRefreshes, "unknownKidRefreshes")
        same(stats.unknownKidSuppressed, suppressed, "unknownKidSuppressed")
        same(entry.isStale, stale, "the store's stale flag")
        same(entry.keys?.keys.map(\.description), keys, "the store's keys")
        // Keys change only by a successful fetch of a new document (or by withdrawal).
        let ids = entry.keys?.keys.map(ObjectIdentifier.init)
        if !published, let ids, let previousKeys {
            same(ids, previousKeys, "key objects (no new document was fetched)")
        }
        previousKeys = ids
    }
}
