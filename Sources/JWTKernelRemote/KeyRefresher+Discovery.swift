import JWTKernel

extension KeyRefresher {
    /// One fetch of `s`'s discovery document, called by `perform` with `s` in flight. A good document
    /// (its `issuer` exactly the configured one, a `jwks_uri` that may be fetched) replaces the key
    /// source when it names another jwks_uri, used from the next key fetch; a failed one keeps the
    /// last good jwks_uri (the keys keep refreshing from it) and retries with the policy's backoff.
    /// As for keys, a fetch cut by `stop()` (or done after it) records nothing.
    func refreshDocument(_ s: IssuerRefreshState) {
        let started: (OpenIDDiscovery, String?, Bool, Double)? = signal.withLock {
            guard !fetchStop.isStopped, var d = s.discovery else { return nil }
            d.stats.fetches += 1
            d.stats.lastAttemptUnix = wallClock.now()
            s.discovery = d
            return (d.discovery, d.etag, d.jwksURI != nil, clock.now())
        }
        guard let (discovery, etag, holdsDocument, start) = started else { return }
        // As for keys: the transfer outside `gate`, the parse inside it.
        let transfer = Result { () throws(KeySourceError) in
            try fetch(discovery.documentSource, ifNoneMatch: holdsDocument ? etag : nil)
        }
        if fetchStop.isStopped { return }
        let result: Result<(KeyFreshness, HTTPKeySource?), KeySourceError>
        gate.lock()
        do throws(KeySourceError) {
            switch try transfer.get() {
            case .document(let bytes, let freshness):
                let uri = try DiscoveryDocument(bytes, expectedIssuer: discovery.issuer).jwksURI
                let keys: HTTPKeySource
                do { keys = try HTTPKeySource(url: uri, configuration: discovery.configuration) } catch {
                    throw KeySourceError(
                        error.reason, "discovery document's jwks_uri \(DiscoveryDocument.quoted(uri)): \(error.message)"
                    )
                }
                result = .success((freshness, keys))
            case .notModified(let freshness):
                // Asked for with a validator only when a document is held; unasked, it renews nothing.
                guard holdsDocument else {
                    throw KeySourceError(.badDocument, "discovery: not modified, but no document is held")
                }
                result = .success((freshness, nil))
            }
        } catch {
            // Every message names the document, so a key fetch failing with it (no jwks_uri yet) says why.
            result = .failure(
                error.message.hasPrefix("discovery document") || error.message.hasPrefix("discovery:")
                    ? error
                    : KeySourceError(error.reason, "discovery document \(discovery.documentURL): \(error.message)"))
        }
        gate.unlock()
        signal.withLock {
            guard var d = s.discovery else { return }
            let now = max(clock.now(), start)
            switch result {
            case .success(let (freshness, keys)):
                if let keys {
                    if keys.url != d.jwksURI {
                        if d.jwksURI != nil { d.stats.jwksURIChanges += 1 }
                        d.jwksURI = keys.url
                        s.source = keys
                        s.etag = nil  // a validator of the old URL's document means nothing to the new one
                    }
                    d.etag = freshness.etag
                } else {
                    d.stats.notModified += 1
                    d.etag = freshness.etag ?? d.etag
                }
                let lifetime = discovery.documentPolicy.lifetime(freshness.maxAge)
                d.nextAttemptAt = now + lifetime * discovery.documentPolicy.refreshAheadFraction
                d.lastFailure = nil
                d.stats.consecutiveFailures = 0
                d.stats.lastError = nil
                d.stats.lastSuccessUnix = wallClock.now()
                emitLocked(KeyRefresherEvent(kind: .documentRefreshed, issuer: s.issuer, url: discovery.documentURL))
            case .failure(let error):
                d.stats.failures[error.reason.rawValue, default: 0] += 1
                d.stats.consecutiveFailures += 1
                d.stats.lastError = error.description
                d.lastFailure = error
                d.nextAttemptAt = now + discovery.documentPolicy.backoff(afterFailures: d.stats.consecutiveFailures)
                emitLocked(
                    {
                        var event = KeyRefresherEvent(
                            kind: .documentFailed, issuer: s.issuer, url: discovery.documentURL,
                            reason: error.reason.rawValue, message: error.message)
                        event.consecutiveFailures = d.stats.consecutiveFailures
                        return event
                    }())
            }
            s.discovery = d
        }
    }
}
