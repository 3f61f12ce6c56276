import CJWTKSupport

/// A fixed array of 64-bit words updated with relaxed atomics (counters) in memory that never
/// moves, so any thread may add to it without a lock. Starts on a cache line, so callers can lay out
/// rows of whole cache lines that threads do not share.
// Safety: @unchecked because the words are only touched through the atomic helpers of jwtk_support.h.
final class AtomicWords: @unchecked Sendable {
    private let words: UnsafeMutablePointer<UInt64>
    let count: Int

    // Safety: owned memory, allocated here and freed in deinit; indices are constants of the callers.
    init(count: Int) {
        self.count = count
        let raw = UnsafeMutableRawPointer.allocate(byteCount: count * 8, alignment: 64)
        words = raw.initializeMemory(as: UInt64.self, repeating: 0, count: count)
    }

    deinit { UnsafeMutableRawPointer(words).deallocate() }

    @inline(__always) func add(_ index: Int, _ value: UInt64 = 1) { jwtk_support_add(words + index, value) }
    @inline(__always) func load(_ index: Int) -> UInt64 { jwtk_support_load(words + index) }
    /// Adds 1 to word 0 and returns its previous value.
    @inline(__always) func fetchAdd() -> UInt64 { jwtk_support_fetch_add(words, 1) }
    @inline(__always) func storeRelease(_ index: Int, _ value: UInt64) {
        jwtk_support_store_release(words + index, value)
    }
    @inline(__always) func loadAcquire(_ index: Int) -> UInt64 { jwtk_support_load_acquire(words + index) }
}
