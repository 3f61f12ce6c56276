/// Limits of one key fetch. Defaults suit a gateway: short timeouts, a 1 MiB
/// cap (real key sets are a few KiB), HTTPS verified with the system trust store.
public struct HTTPKeySourceConfiguration: Sendable {
    /// Seconds to establish the connection (TCP and TLS).
    public var connectTimeout: Double = 5
    /// Seconds for the whole transfer, however slowly the body drips in.
    public var totalTimeout: Double = 10
    /// Larger responses are abandoned (`too_large`), decompressed size included.
    public var maxResponseBytes: Int = 1 << 20
    /// Plain http to a non-loopback host; off: only https (and http to 127.0.0.0/8, ::1, localhost).
    public var allowInsecureHTTP = false
    /// Redirects followed, each only to the same scheme, host and port (or http to https on the same host).
    public var maxRedirects = 3
    /// A CA bundle instead of the system trust store (tests with a private CA).
    public var caFile: String?
    public var userAgent = "jwt-kernel"

    public init() {}

    var connectTimeoutMilliseconds: Int { Self.milliseconds(connectTimeout) }
    var totalTimeoutMilliseconds: Int { Self.milliseconds(totalTimeout) }

    /// Whole milliseconds, at least 1 (0 would mean "no timeout" to curl), never trapping on odd input.
    private static func milliseconds(_ seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 1 }
        return Int(min(seconds * 1000, 86_400_000).rounded(.up))
    }
}
