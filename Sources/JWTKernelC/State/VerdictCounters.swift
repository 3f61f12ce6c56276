import CJWTK
@_spi(Internals) import JWTKernel

/// A verifier's verdict counters (jwtk_stats: allowed, denied, denied per status), striped so that
/// threads verifying with different contexts add to different cache lines instead of contending
/// for one. Each context picks a stripe once, round robin; the batch path uses stripe 0. A
/// snapshot sums the stripes (each counter is exact; the sum is taken without stopping writers).
final class VerdictCounters: Sendable {
    static let stripes = 16
    /// Words per stripe: allowed, denied, denied by status 0..<slots, cache hits, cache misses, padded to
    /// whole cache lines.
    private static let slots = Int(JWTK_STATS_STATUS_SLOTS)
    private static let hitWord = 2 + slots
    private static let rowWords = (2 + slots + 2 + 7) / 8 * 8
    private let words = AtomicWords(count: stripes * rowWords)

    @inline(__always)
    func count(_ status: Int32, stripe: Int) {
        let row = (stripe & (Self.stripes - 1)) * Self.rowWords
        if status == JWTK_OK {
            words.add(row)
        } else if status > 0, status < JWTK_STATS_STATUS_SLOTS {
            words.add(row + 1)
            words.add(row + 2 + Int(status))
        }
    }

    @inline(__always)
    func count(_ outcome: CacheOutcome, stripe: Int) {
        let row = (stripe & (Self.stripes - 1)) * Self.rowWords
        switch outcome {
        case .notUsed: break
        case .hit: words.add(row + Self.hitWord)
        case .miss: words.add(row + Self.hitWord + 1)
        }
    }

    var cacheHits: UInt64 { sum(Self.hitWord) }
    var cacheMisses: UInt64 { sum(Self.hitWord + 1) }
    var allowed: UInt64 { sum(0) }
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
