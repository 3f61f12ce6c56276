/// When a refresher fetches keys again, and how long it keeps serving keys it
/// could not refresh. Durations in seconds. Defaults follow the peers surveyed
/// in the project notes: 10 min without `max-age`, 30 s unknown-kid cooldown
/// (jose, nimbus), stale keys served up to 24 h while the endpoint fails.
public struct RefreshPolicy: Sendable {
    /// Lifetime of a document whose response had no `Cache-Control: max-age`.
    public var defaultMaxAge: Double = 600
    /// `max-age` is clamped into this range (a `max-age=0` or `no-store` cannot make every token refetch).
    public var minMaxAge: Double = 60
    public var maxMaxAge: Double = 86_400
    /// Refresh when this fraction of the lifetime has passed, ahead of expiry.
    public var refreshAheadFraction: Double = 0.8
    /// At most one unknown-kid refresh per issuer per this many seconds.
    public var unknownKidCooldown: Double = 30
    /// Keys whose refreshes keep failing are served this long after their last
    /// successful fetch; then they are withdrawn (`keys_unavailable`).
    public var maxStaleness: Double = 86_400
    /// Retry after a failure: `initialBackoff`, doubling per consecutive failure, at most `maxBackoff`.
    public var initialBackoff: Double = 1
    public var maxBackoff: Double = 300
    /// The refresher thread re-checks its schedule at least this often.
    public var maxIdleWait: Double = 5

    public init() {}

    func lifetime(_ maxAge: Int64?) -> Double {
        guard let maxAge else { return Self.clamp(defaultMaxAge, minMaxAge, maxMaxAge) }
        return Self.clamp(Double(maxAge), minMaxAge, maxMaxAge)
    }

    func backoff(afterFailures n: Int) -> Double {
        var delay = max(0, initialBackoff)
        for _ in 1..<max(1, min(n, 40)) { delay *= 2 }
        return min(delay, maxBackoff)
    }

    private static func clamp(_ v: Double, _ lo: Double, _ hi: Double) -> Double {
        guard v.isFinite else { return lo }
        return min(max(v, lo), max(lo, hi))
    }
}
