import Synchronization

/// A fixed array of 64-bit words updated with atomics (counters, the fork epoch) in memory that never
/// moves, so any thread may add to it without a lock. Starts on a cache line, so callers can lay out rows
/// of whole cache lines that threads do not share. The atomics are the standard library's
/// `Synchronization.Atomic`, the one atomic mechanism of the core and the C library.
// Safety: @unchecked because the words are only touched through `Atomic`'s operations.
final class AtomicWords: @unchecked Sendable {
    private let words: UnsafeMutablePointer<Atomic<UInt64>>
    let count: Int

    // Safety: owned memory, allocated here and freed in deinit; indices are constants of the callers.
    init(count: Int) {
        self.count = count
        let raw = UnsafeMutableRawPointer.allocate(
            byteCount: count * MemoryLayout<Atomic<UInt64>>.stride, alignment: 64)
        words = raw.bindMemory(to: Atomic<UInt64>.self, capacity: count)
        for i in 0..<count { (words + i).initialize(to: Atomic(0)) }
    }

    deinit {
        words.deinitialize(count: count)
        UnsafeMutableRawPointer(words).deallocate()
    }

    @inline(__always) func add(_ index: Int, _ value: UInt64 = 1) {
        words[index].wrappingAdd(value, ordering: .relaxed)
    }
    /// `add(index)` for a word only one thread writes at a time (`CounterStripe`): a load and a store,
    /// each atomic, so concurrent readers see whole values, without the read-modify-write's cost.
    @inline(__always) func addSingleWriter(_ index: Int) {
        words[index].store(words[index].load(ordering: .relaxed) &+ 1, ordering: .relaxed)
    }
    @inline(__always) func load(_ index: Int) -> UInt64 { words[index].load(ordering: .relaxed) }
    /// Publication order: a reader that sees the new value (`loadAcquire`) also sees what was stored before it.
    @inline(__always) func storeRelease(_ index: Int, _ value: UInt64) {
        words[index].store(value, ordering: .releasing)
    }
    @inline(__always) func loadAcquire(_ index: Int) -> UInt64 { words[index].load(ordering: .acquiring) }
}
