import CJWTK
@_spi(Internals) import JWTKernel

/// A verifier's verdict counters (jwtk_stats: allowed, denied, denied per status), striped so that
/// threads verifying with different contexts add to different cache lines instead of contending
/// for one. Each context picks a stripe once, round robin; the batch path uses stripe 0. A
/// snapshot sums the stripes (each counter is exact; the sum is taken without stopping writers).
final class VerdictCounters: Sendable {
    static let stripes = 16
    /// Words per stripe: allowed (no cache), denied, denied by status 0..<slots, denied cache hits, denied
    /// cache misses, allowed cache hits, allowed cache misses, padded to whole cache lines. An allowed
    /// verification adds to one word, its outcome's, so the common verdict costs one atomic add, not two
    /// (jwtk_verify's cache hit is some 50 ns, and each atomic add on x86 some 20 cycles of it).
    private static let slots = Int(JWTK_STATS_STATUS_SLOTS)
    private static let hitWord = 2 + slots
    private static let allowedHitWord = hitWord + 2
    private static let rowWords = (2 + slots + 4 + 7) / 8 * 8
    private let words = AtomicWords(count: stripes * rowWords)

    /// A verdict that did not go through the cache (the batch path, a token refused before verification).
    @inline(__always)
    func count(_ status: Int32, stripe: Int) {
        count(status, .notUsed, stripe: stripe)
    }

    /// A verdict and what the cache did for it: one word for an allowed token, the denied words and the
    /// outcome's for a denied one.
    @inline(__always)
    func count(_ status: Int32, _ outcome: CacheOutcome, stripe: Int) {
        let row = (stripe & (Self.stripes - 1)) * Self.rowWords
        if status == JWTK_OK {
            switch outcome {
            case .notUsed: words.add(row)
            case .hit: words.add(row + Self.allowedHitWord)
            case .miss: words.add(row + Self.allowedHitWord + 1)
            }
            return
        }
        if status > 0, status < JWTK_STATS_STATUS_SLOTS {
            words.add(row + 1)
            words.add(row + 2 + Int(status))
        }
        switch outcome {
        case .notUsed: break
        case .hit: words.add(row + Self.hitWord)
        case .miss: words.add(row + Self.hitWord + 1)
        }
    }

    var cacheHits: UInt64 { sum(Self.hitWord) &+ sum(Self.allowedHitWord) }
    var cacheMisses: UInt64 { sum(Self.hitWord + 1) &+ sum(Self.allowedHitWord + 1) }
    var allowed: UInt64 { sum(0) &+ sum(Self.allowedHitWord) &+ sum(Self.allowedHitWord + 1) }
    var denied: UInt64 { sum(1) }
    func denied(_ status: Int) -> UInt64 { sum(2 + status) }

    private func sum(_ offset: Int) -> UInt64 {
        var total: UInt64 = 0
        for s in 0..<Self.stripes { total &+= words.load(s * Self.rowWords + offset) }
        return total
    }

    /// Round-robin stripe for a new context.
    static func nextStripe() -> Int { Int(truncatingIfNeeded: stripeSource.fetchAdd()) }
    private static let stripeSource = AtomicWords(count: 1)
}
