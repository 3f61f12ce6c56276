#if canImport(Glibc)
import Glibc
#endif

/// A value behind its own pthread mutex, each in its own object (and so its
/// own cache lines): the verified-token cache's shards, the key store's writers.
///
/// A pthread mutex rather than `Synchronization.Mutex`: on Linux the latter
/// locks inside the uninstrumented standard library, which ThreadSanitizer
/// cannot see, so every access it guards would be reported as a race.
///
/// The value lives in memory this object allocates, not in a stored `var`, so
/// access needs no dynamic exclusivity check: the mutex is the exclusivity.
// Safety: @unchecked because `value` is only touched inside withLock, under the mutex.
final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let value: UnsafeMutablePointer<Value>

    init(_ value: Value) {
        self.value = .allocate(capacity: 1)
        self.value.initialize(to: value)
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    @inline(__always)
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body(&value.pointee)
    }
}
