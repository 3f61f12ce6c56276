/// Where "now" comes from, in whole seconds since the Unix epoch. Injectable
/// so tests and the CLI's `--now` can verify old tokens deterministically.
public protocol JWTClock: Sendable {
    func now() -> Int64
}
