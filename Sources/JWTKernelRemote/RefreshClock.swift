#if canImport(Glibc)
import Glibc
#endif

/// Seconds on a clock that only moves forward: the refresher's schedule.
/// Injectable, so tests move time by hand and call `KeyRefresher.refreshDue()`.
public protocol RefreshClock: Sendable {
    func now() -> Double
}

/// CLOCK_MONOTONIC: wall-clock jumps do not delay or hasten refreshes.
public struct MonotonicClock: RefreshClock {
    public init() {}
    public func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
