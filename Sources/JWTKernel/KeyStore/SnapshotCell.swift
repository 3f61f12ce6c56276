import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A reference to an immutable snapshot that writers replace, with a
/// generation number that changes with every replacement.
///
/// Readers on the hot path do not touch the reference: they keep the snapshot
/// they last took in their own per-thread cache (`KeyStoreReaderCache`) and
/// only load `generation` to see whether it is still current. Only when it is
/// not do they take the mutex, held just to copy (retain) the reference and
/// read the generation that goes with it: never while a snapshot is built,
/// parsed or freed (`PThreadLock`, the one mutex).
// Safety: @unchecked because `current` is read and written only between lock and unlock of `mutex`;
// `generation` is atomic.
final class SnapshotCell<Snapshot: AnyObject & Sendable>: @unchecked Sendable {
    /// Written (under the mutex, after `current`) by every `store`; starts at 1,
    /// so 0 can mean "nothing cached" in a reader's cache. 64 bits never wrap.
    let generation = Atomic<UInt64>(1)
    private let mutex = PThreadLock()
    private var current: Snapshot
    /// Keeps the generations of neighbouring cells (allocated one after another)
    /// on different cache lines, so a publication in one stripe does not evict
    /// the line readers of the others load on every lookup.
    private let padding: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)

    init(_ initial: Snapshot) {
        current = initial
    }

    /// The current snapshot, retained for the caller.
    func load() -> Snapshot { loadWithGeneration().snapshot }

    /// The current snapshot, retained for the caller, and its generation.
    func loadWithGeneration() -> (snapshot: Snapshot, generation: UInt64) {
        mutex.lock()
        let snapshot = current
        let g = generation.load(ordering: .relaxed)
        mutex.unlock()
        return (snapshot, g)
    }

    /// Publishes `next`: readers whose next generation load sees the new value
    /// (every lookup that starts after this returns) take `next`. The previous
    /// snapshot is released after the unlock, so freeing its keys never happens
    /// under the lock (and only once no reader's cache holds it any more).
    func store(_ next: Snapshot) {
        mutex.lock()
        let previous = current
        current = next
        generation.wrappingAdd(1, ordering: .releasing)
        mutex.unlock()
        withExtendedLifetime(previous) {}
    }
}
