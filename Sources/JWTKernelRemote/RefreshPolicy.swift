/// When a refresher fetches keys again, and how long it keeps serving keys it
/// could not refresh. Durations in seconds. Defaults follow the peers surveyed
/// in the project notes: 10 min without `max-age`, 30 s unknown-kid cooldown
/// (jose, nimbus), stale keys served up to 24 h while the endpoint fails.
///
/// Every value is clamped into `Bounds` when it is set, so no policy can make the
/// refresher fetch without pause (a zero backoff or cooldown would hammer the
/// identity provider) or overflow a time computation (`.infinity`, `1e300`):
/// below the range gives the lower bound, above it the upper bound, NaN the
/// default. With the smallest values an issuer's endpoint sees at most one
/// scheduled fetch per 0.5 s while it answers (`minMaxAge` x
/// `refreshAheadFraction`), retries that start at 0.5 s apart and double up to at
/// least 5 s while it fails, and at most one unknown-kid fetch per 0.5 s.
public struct RefreshPolicy: Sendable {
    /// The range each duration is clamped into, and the default it takes for NaN.
    public enum Bounds {
        public static let defaultMaxAge: ClosedRange<Double> = 1...yearSeconds
        public static let minMaxAge: ClosedRange<Double> = 1...yearSeconds
        public static let maxMaxAge: ClosedRange<Double> = 1...yearSeconds
        public static let refreshAheadFraction: ClosedRange<Double> = 0.5...1
        public static let unknownKidCooldown: ClosedRange<Double> = 0.5...86_400
        public static let maxStaleness: ClosedRange<Double> = 1...yearSeconds
        public static let initialBackoff: ClosedRange<Double> = 0.5...3_600
        public static let maxBackoff: ClosedRange<Double> = 5...86_400
        public static let maxIdleWait: ClosedRange<Double> = 0.05...60
        /// 366 days: the C configuration's upper bound too.
        public static let yearSeconds: Double = 366 * 86_400
    }

    /// Lifetime of a document whose response had no `Cache-Control: max-age`.
    public var defaultMaxAge: Double {
        get { stored.defaultMaxAge }
        set { stored.defaultMaxAge = Self.bounded(newValue, Bounds.defaultMaxAge, default: 600) }
    }
    /// `max-age` is clamped into this range (a `max-age=0` or `no-store` cannot make every token refetch).
    public var minMaxAge: Double {
        get { stored.minMaxAge }
        set { stored.minMaxAge = Self.bounded(newValue, Bounds.minMaxAge, default: 60) }
    }
    public var maxMaxAge: Double {
        get { stored.maxMaxAge }
        set { stored.maxMaxAge = Self.bounded(newValue, Bounds.maxMaxAge, default: 86_400) }
    }
    /// Refresh when this fraction of the lifetime has passed, ahead of expiry.
    public var refreshAheadFraction: Double {
        get { stored.refreshAheadFraction }
        set { stored.refreshAheadFraction = Self.bounded(newValue, Bounds.refreshAheadFraction, default: 0.8) }
    }
    /// At most one unknown-kid refresh per issuer per this many seconds.
    public var unknownKidCooldown: Double {
        get { stored.unknownKidCooldown }
        set { stored.unknownKidCooldown = Self.bounded(newValue, Bounds.unknownKidCooldown, default: 30) }
    }
    /// Keys whose refreshes keep failing are served this long after their last
    /// successful fetch; then they are withdrawn (`keys_unavailable`).
    public var maxStaleness: Double {
        get { stored.maxStaleness }
        set { stored.maxStaleness = Self.bounded(newValue, Bounds.maxStaleness, default: 86_400) }
    }
    /// Retry after a failure: `initialBackoff`, doubling per consecutive failure, at most `maxBackoff`
    /// (never less than `initialBackoff`).
    public var initialBackoff: Double {
        get { stored.initialBackoff }
        set { stored.initialBackoff = Self.bounded(newValue, Bounds.initialBackoff, default: 1) }
    }
    public var maxBackoff: Double {
        get { stored.maxBackoff }
        set { stored.maxBackoff = Self.bounded(newValue, Bounds.maxBackoff, default: 300) }
    }
    /// The refresher thread re-checks its schedule at least this often.
    public var maxIdleWait: Double {
        get { stored.maxIdleWait }
        set { stored.maxIdleWait = Self.bounded(newValue, Bounds.maxIdleWait, default: 5) }
    }

    /// The values, each inside its bound (the setters above are the only writers).
    private struct Stored: Sendable {
        var defaultMaxAge: Double = 600
        var minMaxAge: Double = 60
        var maxMaxAge: Double = 86_400
        var refreshAheadFraction: Double = 0.8
        var unknownKidCooldown: Double = 30
        var maxStaleness: Double = 86_400
        var initialBackoff: Double = 1
        var maxBackoff: Double = 300
        var maxIdleWait: Double = 5
    }
    private var stored = Stored()

    public init() {}

    func lifetime(_ maxAge: Int64?) -> Double {
        let hi = max(minMaxAge, maxMaxAge)
        guard let maxAge else { return min(max(defaultMaxAge, minMaxAge), hi) }
        return min(max(Double(maxAge), minMaxAge), hi)
    }

    func backoff(afterFailures n: Int) -> Double {
        var delay = initialBackoff
        for _ in 1..<max(1, min(n, 40)) { delay *= 2 }
        return min(delay, max(initialBackoff, maxBackoff))
    }

    /// `value` inside `range`; NaN is `fallback` (itself inside the range).
    static func bounded(_ value: Double, _ range: ClosedRange<Double>, default fallback: Double) -> Double {
        guard !value.isNaN else { return fallback }
        return min(max(value, range.lowerBound), range.upperBound)
    }
}
