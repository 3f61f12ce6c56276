/// What a refresher did with one issuer's discovery document (`KeySourceStats.discovery`): the
/// document's own fetches, apart from the key fetches the other counters describe.
public struct DiscoveryStats: Sendable {
    public var documentURL: String
    /// The key URL in use: from the last good document; nil before the first.
    public var jwksURI: String?
    /// Document fetch attempts, whatever their outcome.
    public var fetches = 0
    /// Answers "304 Not Modified".
    public var notModified = 0
    /// Failed document fetches by `KeySourceError.Reason` name (an issuer mismatch or a missing
    /// `jwks_uri` is `bad_document`; a jwks_uri that may not be fetched is `refused_url`).
    public var failures: [String: Int] = [:]
    /// Times a refreshed document named another jwks_uri than the one in use.
    public var jwksURIChanges = 0
    public var consecutiveFailures = 0
    public var lastError: String?
    public var lastSuccessUnix: Int64?
    public var lastAttemptUnix: Int64?
    /// When the document is due again, on the refresher's clock (with no jwks_uri yet: with the keys).
    public var nextAttemptAt: Double?

    public var totalFailures: Int { failures.values.reduce(0, +) }
}
