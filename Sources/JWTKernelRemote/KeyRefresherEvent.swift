/// One thing a `KeyRefresher` did or decided for an issuer, handed to its observer
/// (`KeyRefresher.observe(_:)`) as it happens: for a host's log. The counters stay in
/// `KeySourceStats`; an event carries only what a log line needs.
public struct KeyRefresherEvent: Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// A key fetch answered a document, now published (`keysLoaded`, `keysRejected`).
        case keysRefreshed = "keys_refreshed"
        /// A conditional key fetch answered "304 Not Modified": the keys held are renewed.
        case keysNotModified = "keys_not_modified"
        /// A key fetch failed (`reason`, `message`); the last good keys stay published.
        case fetchFailed = "fetch_failed"
        /// The keys' lifetime ended with no successful refresh: served, but stale.
        case keysStale = "keys_stale"
        /// No successful refresh for `maxStaleness`: the keys were withdrawn (`keys_unavailable`).
        case keysWithdrawn = "keys_withdrawn"
        /// The OpenID Connect discovery document was fetched (or answered "not modified").
        case documentRefreshed = "document_refreshed"
        /// The discovery document's fetch failed (`reason`, `message`); the last good one stays in use.
        case documentFailed = "document_failed"
    }

    public var kind: Kind
    public var issuer: String
    /// The URL fetched (the key source's description, or the discovery document's URL), when there is one.
    public var url: String?
    /// `KeySourceError.Reason`'s name, for failures.
    public var reason: String?
    /// Why: the error's message, or the withdrawal's cause.
    public var message: String?
    /// After a document: keys published and keys refused.
    public var keysLoaded = 0
    public var keysRejected = 0
    /// Failures in a row, this one included (0 after a success).
    public var consecutiveFailures = 0
    /// The fetch was made because a token named an unknown kid.
    public var byUnknownKid = false
    /// After a failed fetch: whether the issuer still has keys published (the last good ones), or none
    /// were ever loaded (or they were withdrawn), so its tokens are `keys_unavailable`.
    public var keysHeld = true

    public init(kind: Kind, issuer: String, url: String? = nil, reason: String? = nil, message: String? = nil) {
        self.kind = kind
        self.issuer = issuer
        self.url = url
        self.reason = reason
        self.message = message
    }

    public var description: String {
        var text = "\(kind.rawValue) issuer=\(issuer)"
        if let url { text += " url=\(url)" }
        if let reason { text += " reason=\(reason)" }
        if let message { text += " message=\(message)" }
        return text
    }
}
