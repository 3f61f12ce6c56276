#if canImport(Glibc)
import Glibc
#endif

/// The real wall clock (`CLOCK_REALTIME`).
public struct SystemClock: JWTClock {
    public init() {}
    public func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec)
    }
}
