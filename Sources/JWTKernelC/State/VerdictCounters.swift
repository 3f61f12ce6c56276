import CJWTK
@_spi(Internals) import JWTKernel

/// A verifier's verdict counters (jwtk_stats: allowed, denied, denied per status), in rows so that
/// threads verifying with different contexts add to different cache lines instead of contending
/// for one, most of them without an atomic read-modify-write (`CounterStripe`: each context's row). A
/// snapshot sums the rows (each counter is exact; the sum is taken without stopping writers).
final class VerdictCounters: Sendable {
    /// Words per stripe: allowed (no cache), denied, denied by status 0..<slots, denied cache hits, denied
    /// cache misses, allowed cache hits, allowed cache misses, padded to whole cache lines. An allowed
    /// verification adds to one word, its outcome's, so the common verdict costs one atomic add, not two
    /// (jwtk_verify's cache hit is some 50 ns, and each atomic add on x86 some 20 cycles of it).
    private static let slots = Int(JWTK_STATS_STATUS_SLOTS)
    private static let hitWord = 2 + slots
    private static let allowedHitWord = hitWord + 2
    private static let rowWords = (2 + slots + 4 + 7) / 8 * 8
    private let words = AtomicWords(count: CounterStripe.rows * rowWords)

    /// A verdict that did not go through the cache (the batch path, a token refused before verification).
    @inline(__always)
    func count(_ status: Int32, stripe: CounterStripe) {
        count(status, .notUsed, stripe: stripe)
    }

    /// A verdict and what the cache did for it: one word for an allowed token, the denied words and the
    /// outcome's for a denied one.
    @inline(__always)
    func count(_ status: Int32, _ outcome: CacheOutcome, stripe: CounterStripe) {
        let row = stripe.row * Self.rowWords
        if status == JWTK_OK {
            switch outcome {
            case .notUsed: add(row, stripe)
            case .hit: add(row + Self.allowedHitWord, stripe)
            case .miss: add(row + Self.allowedHitWord + 1, stripe)
            }
            return
        }
        if status > 0, status < JWTK_STATS_STATUS_SLOTS {
            add(row + 1, stripe)
            add(row + 2 + Int(status), stripe)
        }
        switch outcome {
        case .notUsed: break
        case .hit: add(row + Self.hitWord, stripe)
        case .miss: add(row + Self.hitWord + 1, stripe)
        }
    }

    @inline(__always)
    private func add(_ index: Int, _ stripe: CounterStripe) {
        if stripe.exclusive { words.addSingleWriter(index) } else { words.add(index) }
    }

    var cacheHits: UInt64 { sum(Self.hitWord) &+ sum(Self.allowedHitWord) }
    var cacheMisses: UInt64 { sum(Self.hitWord + 1) &+ sum(Self.allowedHitWord + 1) }
    var allowed: UInt64 { sum(0) &+ sum(Self.allowedHitWord) &+ sum(Self.allowedHitWord + 1) }
    var denied: UInt64 { sum(1) }
    func denied(_ status: Int) -> UInt64 { sum(2 + status) }

    private func sum(_ offset: Int) -> UInt64 {
        var total: UInt64 = 0
        for s in 0..<CounterStripe.rows { total &+= words.load(s * Self.rowWords + offset) }
        return total
    }
}
