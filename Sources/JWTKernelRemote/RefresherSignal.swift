#if canImport(Glibc)
import Glibc
#endif

/// The refresher's mutex and condition variable: the thread sleeps on it until
/// its next deadline or until a verifying thread reports an unknown kid.
/// pthread primitives, which ThreadSanitizer understands.
// Safety: @unchecked because `signaled` is touched only with `mutex` held, and the pthread objects are
// created in init and destroyed in deinit only.
final class RefresherSignal: @unchecked Sendable {
    // Safety: allocated once, initialized before use, destroyed and freed in deinit only.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    /// Guarded by `mutex`: a wake-up arrived since the last wait.
    private var signaled = false

    init() {
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func withLock<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Plain lock and unlock, for a holder that spans calls (fork handlers, the publish gate).
    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }

    /// Wakes the sleeping thread (or makes its next wait return at once).
    func signal() {
        withLock {
            signaled = true
            pthread_cond_signal(condition)
        }
    }

    /// `signal()` for a caller that already holds the lock.
    func signalLocked() {
        signaled = true
        pthread_cond_signal(condition)
    }

    /// Sleeps up to `seconds` unless signaled; call with the lock held.
    func waitLocked(seconds: Double) {
        if signaled { signaled = false; return }
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        let wait = seconds.isFinite ? min(max(seconds, 0.001), 3600) : 1
        let whole = Int(wait)
        var nanos = Int(ts.tv_nsec) + Int((wait - Double(whole)) * 1e9)
        var secs = Int(ts.tv_sec) + whole
        if nanos >= 1_000_000_000 { nanos -= 1_000_000_000; secs += 1 }
        ts.tv_sec = secs
        ts.tv_nsec = nanos
        _ = pthread_cond_timedwait(condition, mutex, &ts)
        signaled = false
    }
}
