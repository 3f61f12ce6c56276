import JWTKernel

/// One issuer's discovery document schedule, held in its `IssuerRefreshState` and read and written
/// only under the refresher's lock.
struct DiscoveryState {
    let discovery: OpenIDDiscovery
    /// The validator of the document held (If-None-Match).
    var etag: String?
    /// From the last good document; the key source is built from it.
    var jwksURI: String?
    /// Meaningful once a document is held: before that, the document is fetched with every key fetch.
    var nextAttemptAt: Double
    /// Why the last document fetch failed: a key fetch with no jwks_uri yet fails with it.
    var lastFailure: KeySourceError?
    var stats: DiscoveryStats

    init(_ discovery: OpenIDDiscovery, now: Double) {
        self.discovery = discovery
        self.nextAttemptAt = now
        self.stats = DiscoveryStats(documentURL: discovery.documentURL)
    }

    /// What a key fetch fails with while no document has loaded: the document's own failure.
    var keyURLUnavailable: KeySourceError {
        lastFailure ?? KeySourceError(.other, "discovery: no document loaded yet")
    }

    /// Under the lock: whether the document is due with this pass (`keysDue`: the keys are).
    func isDue(now: Double, keysDue: Bool) -> Bool {
        jwksURI == nil ? keysDue : now >= nextAttemptAt
    }
}
