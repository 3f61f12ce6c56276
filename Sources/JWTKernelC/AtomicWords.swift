import CJWTKSupport

/// A fixed array of 64-bit words updated with relaxed atomics (counters) in memory that never
/// moves, so any thread may add to it without a lock.
// Safety: @unchecked because the words are only touched through the atomic helpers of jwtk_support.h.
final class AtomicWords: @unchecked Sendable {
    private let words: UnsafeMutablePointer<UInt64>
    let count: Int

    // Safety: owned memory, allocated here and freed in deinit; indices are constants of the callers.
    init(count: Int) {
        self.count = count
        words = .allocate(capacity: count)
        words.initialize(repeating: 0, count: count)
    }

    deinit { words.deallocate() }

    @inline(__always) func add(_ index: Int, _ value: UInt64 = 1) { jwtk_support_add(words + index, value) }
    @inline(__always) func load(_ index: Int) -> UInt64 { jwtk_support_load(words + index) }
    @inline(__always) func storeRelease(_ index: Int, _ value: UInt64) {
        jwtk_support_store_release(words + index, value)
    }
    @inline(__always) func loadAcquire(_ index: Int) -> UInt64 { jwtk_support_load_acquire(words + index) }
}
