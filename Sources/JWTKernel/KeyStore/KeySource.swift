/// Where an issuer's keys come from: an HTTP endpoint (JWTKernelRemote), a
/// file, or an in-memory document in tests. The store and the refresher call
/// `fetch` off the hot path only; verification never waits on a source.
public protocol KeySource: Sendable {
    /// Fetches the key document. `etag`: the validator of the document held
    /// now, so the source may answer `.notModified` instead of sending it again.
    func fetch(ifNoneMatch etag: String?) throws(KeySourceError) -> KeyFetch
}

/// What a fetch returned.
public enum KeyFetch: Sendable {
    /// A key document (JWKS, JWK, or Google/Firebase `{kid: PEM}` map), not parsed yet.
    case document([UInt8], KeyFreshness)
    /// The document held is still current (HTTP 304).
    case notModified(KeyFreshness)

    public var freshness: KeyFreshness {
        switch self {
        case .document(_, let f), .notModified(let f): f
        }
    }
}

/// How long a fetched document may be used, as its source said.
public struct KeyFreshness: Sendable, Equatable {
    /// Seconds the document may be used before it should be fetched again
    /// (HTTP `Cache-Control: max-age`); nil: the source did not say.
    public var maxAge: Int64?
    /// The validator to send back next time (HTTP `ETag`).
    public var etag: String?

    public init(maxAge: Int64? = nil, etag: String? = nil) {
        self.maxAge = maxAge
        self.etag = etag
    }
}
