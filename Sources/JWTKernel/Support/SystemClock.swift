#if canImport(Glibc)
import Glibc
#endif

/// The real wall clock, read coarsely: claims are whole seconds, and
/// `CLOCK_REALTIME_COARSE` costs a few nanoseconds where `CLOCK_REALTIME`
/// costs tens (its resolution, a few milliseconds, is far below a second).
public struct SystemClock: JWTClock {
    public init() {}
    public func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME_COARSE, &ts)
        return Int64(ts.tv_sec)
    }
}
