@_spi(Internals) import JWTKernel

#if canImport(Glibc)
import Glibc
#endif

/// The refresher's mutex and condition variable: the thread sleeps on it until
/// its next deadline or until a verifying thread reports an unknown kid.
/// The core's `PThreadLock` and a pthread condition variable, which ThreadSanitizer understands; every
/// pthread call's result checked.
// Safety: @unchecked because `signaled` is touched only with the lock held, and the condition is created in
// init and destroyed in deinit only.
final class RefresherSignal: @unchecked Sendable {
    private let mutex = PThreadLock()
    // Safety: allocated once, initialized before use, destroyed and freed in deinit only.
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    /// Guarded by `mutex`: a wake-up arrived since the last wait.
    private var signaled = false

    init() {
        condition = .allocate(capacity: 1)
        var attributes = pthread_condattr_t()
        var rc = pthread_condattr_init(&attributes)
        precondition(rc == 0, "pthread_condattr_init failed: \(rc)")
        rc = pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        precondition(rc == 0, "pthread_condattr_setclock failed: \(rc)")
        rc = pthread_cond_init(condition, &attributes)
        precondition(rc == 0, "pthread_cond_init failed: \(rc)")
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        let rc = pthread_cond_destroy(condition)
        precondition(rc == 0, "pthread_cond_destroy failed: \(rc)")
        condition.deallocate()
    }

    func withLock<R>(_ body: () throws -> R) rethrows -> R { try mutex.withLock(body) }

    /// Plain lock and unlock, for a holder that spans calls (fork handlers, the publish gate).
    func lock() { mutex.lock() }
    func unlock() { mutex.unlock() }

    /// Wakes the sleeping thread (or makes its next wait return at once).
    func signal() {
        withLock {
            signaled = true
            let rc = pthread_cond_signal(condition)
            precondition(rc == 0, "pthread_cond_signal failed: \(rc)")
        }
    }

    /// `signal()` for a caller that already holds the lock.
    func signalLocked() {
        signaled = true
        let rc = pthread_cond_signal(condition)
        precondition(rc == 0, "pthread_cond_signal failed: \(rc)")
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
        let rc = pthread_cond_timedwait(condition, mutex.pointer, &ts)
        precondition(rc == 0 || rc == ETIMEDOUT, "pthread_cond_timedwait failed: \(rc)")
        signaled = false
    }
}
