#if canImport(Glibc)
import Glibc
#endif

/// The one mutex of jwt-kernel (the core's `Locked` and `SnapshotCell`, the remote keys' refresher signal, the
/// C library's handles): a pthread mutex in memory of its own, never moved, every pthread call's result checked
/// (swift-nio's `NIOLock` is the model: a failing lock or unlock is a broken invariant, never something to
/// carry on from).
///
/// pthread rather than `Synchronization.Mutex`: on Linux the latter locks inside the uninstrumented standard
/// library, which ThreadSanitizer cannot see, so every access it guards would be reported as a race; and the C
/// library links no extra Swift runtime library for it.
// Safety: @unchecked because the mutex is the synchronization itself; its memory is allocated in init, never
// moved, and destroyed and freed in deinit only.
@_spi(Internals)
public final class PThreadLock: @unchecked Sendable {
    /// The mutex itself, for a condition variable's wait (`pthread_cond_timedwait`), with the lock held.
    public let pointer: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        pointer = .allocate(capacity: 1)
        let rc = pthread_mutex_init(pointer, nil)
        precondition(rc == 0, "pthread_mutex_init failed: \(rc)")
    }

    deinit {
        let rc = pthread_mutex_destroy(pointer)
        precondition(rc == 0, "pthread_mutex_destroy failed: \(rc)")
        pointer.deallocate()
    }

    /// Plain lock and unlock, for a holder that spans calls (fork handlers hold the lock across fork()).
    @inline(__always)
    public func lock() {
        let rc = pthread_mutex_lock(pointer)
        precondition(rc == 0, "pthread_mutex_lock failed: \(rc)")
    }

    @inline(__always)
    public func unlock() {
        let rc = pthread_mutex_unlock(pointer)
        precondition(rc == 0, "pthread_mutex_unlock failed: \(rc)")
    }

    @inline(__always)
    public func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}
