#if canImport(Glibc)
import Glibc
#endif

/// A pthread mutex in its own heap memory (never moved). The core's `Locked` is internal to
/// JWTKernel, so the C library keeps this small twin; pthread rather than `Synchronization.Mutex`
/// so ThreadSanitizer sees it and no extra Swift runtime library is linked.
// Safety: @unchecked because the mutex is the synchronization itself; its memory never moves.
final class PThreadMutex: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Plain lock and unlock, for the fork handlers, which hold the lock across fork().
    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }

    @inline(__always)
    func withLock<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
