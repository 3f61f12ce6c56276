#if canImport(Glibc)
import Glibc
#endif

/// A reference to an immutable snapshot that readers take and writers replace.
///
/// The pthread mutex is held only to copy (retain) or swap the reference, a few
/// nanoseconds: never while a snapshot is built, parsed or freed, so a reader
/// waits at most for one pointer swap. A pthread mutex rather than an atomic
/// strong reference (swift-atomics' `ManagedAtomic` of a class): that one needs
/// double-wide compare-and-swap, and ThreadSanitizer understands pthread mutexes
/// (see `Locked`, used by the verified-token cache, for the same choice).
// Safety: @unchecked because `current` is read and written only between lock and unlock of `mutex`.
final class SnapshotCell<Snapshot: AnyObject & Sendable>: @unchecked Sendable {
    // Safety: allocated once, initialized before use, destroyed and freed in deinit only.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var current: Snapshot

    init(_ initial: Snapshot) {
        current = initial
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// The current snapshot, retained for the caller.
    @inline(__always)
    func load() -> Snapshot {
        pthread_mutex_lock(mutex)
        let snapshot = current
        pthread_mutex_unlock(mutex)
        return snapshot
    }

    /// Publishes `next`; the previous snapshot is released after the unlock,
    /// so freeing its keys never happens under the lock.
    func store(_ next: Snapshot) {
        pthread_mutex_lock(mutex)
        let previous = current
        current = next
        pthread_mutex_unlock(mutex)
        withExtendedLifetime(previous) {}
    }
}
