/// A clock stopped at one instant: `--now`, tests, replaying old tokens.
public struct FixedClock: JWTClock {
    public var time: Int64
    public init(_ time: Int64) { self.time = time }
    public func now() -> Int64 { time }
}
