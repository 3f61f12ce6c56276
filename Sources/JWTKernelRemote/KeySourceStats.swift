/// What a refresher did for one issuer: a snapshot of its counters, for logs
/// and metrics. Times are on the refresher's clock (`...At`) and in Unix seconds (`...Unix`).
public struct KeySourceStats: Sendable {
    public var issuer: String
    /// Fetch attempts, whatever their outcome.
    public var fetches = 0
    /// Answers "304 Not Modified" to a conditional fetch.
    public var notModified = 0
    /// Failed fetches by `KeySourceError.Reason` name.
    public var failures: [String: Int] = [:]
    /// Fetches made because a token named an unknown kid.
    public var unknownKidRefreshes = 0
    /// Unknown-kid requests folded into one already pending (cooldown, or a fetch in flight).
    public var unknownKidSuppressed = 0
    /// Verifications answered with keys past their freshness (refreshes failing): a Swift verifier counts
    /// each key lookup and each verified-token cache hit; the C library counts every verification routed to
    /// the issuer (rejections included).
    public var staleServed = 0
    /// Keys in the set now published, and keys of the last document that were refused.
    public var keysLoaded = 0
    public var keysRejected = 0
    /// Why each refused key of the last document was refused.
    public var rejectedReasons: [String] = []
    public var consecutiveFailures = 0
    public var lastError: String?
    public var lastSuccessAt: Double?
    public var lastAttemptAt: Double?
    public var lastSuccessUnix: Int64?
    public var lastAttemptUnix: Int64?
    /// Keys are published for the issuer now (false before the first load and after max staleness).
    public var hasKeys = false
    public var isStale = false
    /// When the next scheduled fetch is due, on the refresher's clock.
    public var nextAttemptAt: Double?
    /// The discovery document's own fetches, for an issuer registered by OpenID Connect discovery.
    public var discovery: DiscoveryStats?

    public var totalFailures: Int { failures.values.reduce(0, +) }
}
