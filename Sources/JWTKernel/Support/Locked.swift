/// A value behind its own `PThreadLock`, each in its own object (and so its own cache lines): the verified-token
/// cache's shards, the key store's writers.
///
/// The value lives in memory this object allocates, not in a stored `var`, so access needs no dynamic
/// exclusivity check: the mutex is the exclusivity.
// Safety: @unchecked because `value` is only touched inside withLock, under the lock.
final class Locked<Value>: @unchecked Sendable {
    private let mutex = PThreadLock()
    private let value: UnsafeMutablePointer<Value>

    init(_ value: Value) {
        self.value = .allocate(capacity: 1)
        self.value.initialize(to: value)
    }

    deinit {
        value.deinitialize(count: 1)
        value.deallocate()
    }

    @inline(__always)
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        mutex.withLock { body(&value.pointee) }
    }
}
