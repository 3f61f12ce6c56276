#if canImport(Glibc)
import Glibc
#endif

/// Where "now" comes from, in whole seconds since the Unix epoch. Injectable
/// so tests and the CLI's `--now` can verify old tokens deterministically.
public protocol JWTClock: Sendable {
    func now() -> Int64
}

public struct SystemClock: JWTClock {
    public init() {}
    public func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec)
    }
}

public struct FixedClock: JWTClock {
    public var time: Int64
    public init(_ time: Int64) { self.time = time }
    public func now() -> Int64 { time }
}
