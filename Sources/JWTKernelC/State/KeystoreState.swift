import CJWTK
import CJWTKSupport
@_spi(Internals) import JWTKernel
import JWTKernelRemote

#if canImport(Glibc)
import Glibc
#endif

/// The object behind `jwtk_keystore`: the core's lock-striped `KeyStore`, into which both push loads
/// (jwtk_keystore_load_jwks) and pull mode (a `KeyRefresher`, JWTKernelRemote) publish, so both share
/// one store, one set of semantics (a failed load or fetch keeps the keys held) and one set of counters.
///
/// Locks: `mutex` guards the push counters, the remote sources and the refresher (none of it on the
/// verify path). The store's own locks and the refresher's are theirs (docs/ARCHITECTURE.md). Verifiers
/// read only `store.generation` and `startedEpoch` per call (atomic loads).
// Safety: @unchecked because every `var` is read and written only under `mutex`; `startedEpoch` is atomic.
final class KeystoreState: @unchecked Sendable {
    /// The store entry of keys loaded with a NULL issuer (the any-issuer keys). An issuer that a token
    /// could spell only with a \u0000 escape; such a token would fall back to these keys anyway.
    static let anyIssuer = "\u{0}jwtk:any-issuer"

    let store = KeyStore()
    let mutex = PThreadLock()
    /// Word 0: the fork epoch (ForkWatch) in which the refresher was started; 0: not started.
    private let startedEpoch = AtomicWords(count: 1)

    // Guarded by `mutex`.
    private var push = PushCounters()
    private var remotes: [String: RemoteSource] = [:]
    /// Configured secrets by issuer ("channel_secret"), merged into every push load for that issuer.
    private var localSecrets: [String: LocalSecret] = [:]
    private(set) var refresher: KeyRefresher?
    /// JWE decryption keys (jwtk_keystore_load_decryption_keys), one set for the keystore: decryption is by
    /// recipient, not by issuer. Never read by verification of signatures.
    private var decryption: DecryptionKeySet?

    struct PushCounters {
        var loads: UInt64 = 0, failures: UInt64 = 0, rejected: UInt64 = 0
        var lastSuccess: Int64 = 0, lastAttempt: Int64 = 0
    }

    /// One issuer's remote key source as configured by a verifier.
    struct RemoteSource {
        let settings: RemoteKeys
        /// The key URL's source, or (settings.discovery) the issuer's discovery.
        let source: HTTPKeySource?
        let discovery: OpenIDDiscovery?
    }

    init() {}

    deinit {
        ForkWatch.untrack(self)
        // Only a refresher started in this process has a thread here to stop (a parent's is abandoned).
        if let refresher, startedEpoch.load(0) == ForkWatch.current { refresher.stop() }
    }

    // MARK: Push mode

    /// What a load did, for the caller's status and message.
    struct LoadOutcome {
        let status: Int32
        let message: String
    }

    /// Parses `documents` (with no lock held) and, if together they hold at least one usable key,
    /// publishes their union as `issuer`'s keys (nil: the any-issuer keys). Otherwise, or if any one of
    /// them is not a key set, the keys held stay: a host with several sources for one issuer (nginx's
    /// `auth_jwt_key_file` lines) never publishes a partial set. A kid naming different keys in two
    /// documents is refused in both (JWKSet's ambiguous-kid rule), as within one; the same key twice is one.
    /// `allowShortHMACSecrets`: jwtk.h's JWTK_LOAD_ALLOW_SHORT_HMAC_SECRETS (each such key loads with a warning).
    func load(
        issuer: String?, documents: [UnsafeRawBufferPointer], allowShortHMACSecrets: Bool = false
    ) -> LoadOutcome {
        let now = Self.wallClock()
        var keys = JWKSet(keys: [])
        for (i, document) in documents.enumerated() {
            do {
                keys = keys.merging(try KeyDocument(document).keySet(allowShortHMACSecrets: allowShortHMACSecrets))
            } catch {
                mutex.withLock {
                    push.failures += 1; push.lastAttempt = now
                }
                let which = documents.count > 1 ? "key set #\(i + 1) " : "key set "
                return LoadOutcome(
                    status: error.code.number, message: which + "refused, old keys kept: \(error.description)")
            }
        }
        guard !keys.keys.isEmpty else {
            mutex.withLock {
                push.failures += 1; push.lastAttempt = now
            }
            let status = keys.rejected.first?.code.number ?? KeyErrorCode.notAKeySet.number
            let why = keys.rejected.isEmpty ? "the key set holds no keys" : Self.describe(keys.rejected)
            return LoadOutcome(status: status, message: "no usable key, old keys kept: \(why)")
        }
        mutex.withLock {
            // Under the mutex with the secret's registration (addLocal), so neither publication undoes the other.
            let local = issuer.flatMap { localSecrets[$0] }
            store.publish(local.map { keys.merging($0.keys) } ?? keys, forIssuer: issuer ?? Self.anyIssuer)
            push.loads += 1
            push.rejected += UInt64(keys.rejected.count)
            push.lastSuccess = now
            push.lastAttempt = now
        }
        // Refused keys, then one warning per key loaded against an RFC rule the caller allowed to break.
        let parts = [
            keys.rejected.isEmpty ? nil : "refused: " + Self.describe(keys.rejected),
            keys.warnings.isEmpty ? nil : "loaded with a warning: " + Self.describe(keys.warnings),
        ]
        return LoadOutcome(status: 0, message: parts.compactMap { $0 }.joined(separator: "; "))
    }

    // MARK: Decryption keys

    /// Parses `document` (no lock held) and, if it holds a usable decryption key, publishes it as the
    /// keystore's decryption key set; otherwise the keys held stay, as for verification keys.
    func loadDecryptionKeys(_ document: UnsafeRawBufferPointer) -> LoadOutcome {
        let keys: DecryptionKeySet
        do { keys = try DecryptionKeySet(document: document) } catch {
            return LoadOutcome(status: error.code.number, message: "decryption keys refused, old keys kept: \(error)")
        }
        mutex.withLock { decryption = keys }
        return LoadOutcome(status: 0, message: keys.rejected.isEmpty ? "" : "refused: " + Self.describe(keys.rejected))
    }

    /// The decryption keys held, or nil before any load.
    var decryptionKeys: DecryptionKeySet? { mutex.withLock { decryption } }

    // MARK: Pull mode

    /// Registers a verifier's remote source (no thread, no I/O): its issuer's tokens are
    /// keys_unavailable until the first fetch. The same source again is a no-op; another source for an
    /// issuer that has one is JWTK_E_CONFIG.
    func addRemote(_ settings: RemoteKeys) throws(StatusError) {
        let key = settings.discovery ? "discovery" : "jwks_url"
        let source: HTTPKeySource?
        let discovery: OpenIDDiscovery?
        do {
            source = settings.discovery ? nil : try HTTPKeySource(url: settings.url)
            discovery = settings.discovery ? try OpenIDDiscovery(issuer: settings.url) : nil
        } catch {
            throw StatusError(JWTK_E_CONFIG, "\(key): \(error.message)")
        }
        checkFork()
        let conflict: Bool = mutex.withLock {
            if let existing = remotes[settings.keyIssuer] { return !existing.settings.sameSource(settings) }
            // A secret configured for the issuer in push mode would be lost at the first fetch without it.
            if let local = localSecrets[settings.keyIssuer], local.secret != settings.localSecret { return true }
            let remote = RemoteSource(settings: settings, source: source, discovery: discovery)
            remotes[settings.keyIssuer] = remote
            let r = refresher ?? KeyRefresher(store: store)
            refresher = r
            add(remote, to: r)
            // Added after jwtk_keystore_start: fetched at once by the running thread.
            if startedEpoch.load(0) != 0 { r.start() }
            return false
        }
        if conflict {
            throw StatusError(
                JWTK_E_CONFIG,
                "\(key): issuer \(settings.keyIssuer) already has another key source, schedule or channel_secret in this keystore"
            )
        }
    }

    /// Registers a verifier's configured secret for its issuer; `publish` (push mode) publishes it at once,
    /// with the keys held for the issuer (pull mode: the refresher does, with every fetched set). The same
    /// secret again is a no-op; another secret for an issuer that has one is JWTK_E_CONFIG.
    func addLocal(_ local: LocalSecret, publish: Bool) throws(StatusError) {
        checkFork()
        let added: Bool? = mutex.withLock {
            if let existing = localSecrets[local.issuer] { return existing.secret == local.secret ? false : nil }
            // An issuer pulled without this secret would drop it at its next fetch (pull mode registers the
            // source, with its secret, first).
            if let remote = remotes[local.issuer], remote.settings.localSecret != local.secret { return nil }
            localSecrets[local.issuer] = local
            // Under the mutex, so a concurrent push load for the issuer (which merges the secret) is not undone.
            if publish {
                let held = store.keys(forIssuer: local.issuer)
                store.publish(held.map { $0.merging(local.keys) } ?? local.keys, forIssuer: local.issuer)
            }
            return true
        }
        guard added != nil else {
            throw StatusError(
                JWTK_E_CONFIG, "channel_secret: issuer \(local.issuer) already has another secret in this keystore")
        }
    }

    private func add(_ remote: RemoteSource, to refresher: KeyRefresher) {
        if let discovery = remote.discovery {
            refresher.add(discovery: discovery, localKeys: remote.settings.localKeys, policy: remote.settings.policy)
        } else if let source = remote.source {
            refresher.add(
                issuer: remote.settings.keyIssuer, source: source, localKeys: remote.settings.localKeys,
                policy: remote.settings.policy)
        }
    }

    /// jwtk_keystore_start: the refresher thread, once per process (idempotent). Starts are serialized by a
    /// plain pthread mutex (`jkernel_start_lock`, which says why): two threads of a forked child racing through
    /// the first start's lazy initializers could spin forever in the Swift runtime.
    func start() {
        checkFork()
        jkernel_start_lock()
        defer { jkernel_start_unlock() }
        ForkWatch.install()
        mutex.withLock {
            guard startedEpoch.load(0) == 0 else { return }
            refresher?.start()
            startedEpoch.storeRelease(0, ForkWatch.current)
        }
        ForkWatch.track(self)
    }

    /// Hot path: two loads. A keystore started in another process (before a fork) restarts its refresher here.
    @inline(__always)
    func checkFork() {
        let started = startedEpoch.load(0)
        if started != 0, started != ForkWatch.current { restartAfterFork() }
    }

    /// In a forked child: the parent's refresher has no thread here and its locks may have been copied
    /// held, so it is abandoned untouched (leaked: its deinit would join a thread that does not exist);
    /// a new one re-registers every source (first fetches at once) and starts its own thread.
    @inline(never)
    private func restartAfterFork() {
        // Serialized with every start (`jkernel_start_lock`): threads of a forked child restarting at once.
        jkernel_start_lock()
        defer { jkernel_start_unlock() }
        mutex.withLock {
            let started = startedEpoch.load(0)
            guard started != 0, started != ForkWatch.current else { return }
            if let old = refresher { _ = Unmanaged.passRetained(old) }
            refresher = nil
            if !remotes.isEmpty {
                let fresh = KeyRefresher(store: store)
                for remote in remotes.values { add(remote, to: fresh) }
                fresh.start()
                refresher = fresh
            }
            startedEpoch.storeRelease(0, ForkWatch.current)
        }
    }

    /// Fork handlers (ForkWatch): hold every lock this keystore and its refresher thread take, around fork().
    func holdForFork() {
        mutex.lock()
        if startedEpoch.load(0) == ForkWatch.current { refresher?.holdForFork() }
    }

    func releaseAfterFork(epochBefore: UInt64) {
        if startedEpoch.load(0) == epochBefore { refresher?.releaseAfterFork() }
        mutex.unlock()
    }

    // MARK: Counters

    struct Counters {
        var push = PushCounters()
        var remote: [KeySourceStats] = []
        var keysLoaded: UInt64 = 0
    }

    func counters() -> Counters {
        checkFork()
        var c = mutex.withLock { Counters(push: push, remote: refresher?.allStats ?? []) }
        for issuer in store.issuers { c.keysLoaded += UInt64(store.keys(forIssuer: issuer)?.keys.count ?? 0) }
        return c
    }

    /// Reasons name the key by kid and the problem, never the key material (KeyError's promise).
    private static func describe(_ errors: [KeyError]) -> String {
        errors.map { "\($0.code.name): \($0.description)" }.joined(separator: "; ")
    }

    static func wallClock() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec)
    }
}
