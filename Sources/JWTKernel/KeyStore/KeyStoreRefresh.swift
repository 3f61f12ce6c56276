/// The outcome of one synchronous refresh of an issuer from its source.
public enum KeyRefreshOutcome: Sendable {
    /// New keys were published. `rejected`: keys of the document that were skipped, with why.
    case updated(JWKSet, KeyFreshness)
    /// The source said the document held is still current; nothing was published.
    case notModified(KeyFreshness)
}

extension KeyStore {
    /// Fetches `issuer`'s document from `source`, parses it (the EVP keys are
    /// built here, once, on the calling thread) and publishes it. On any failure
    /// the keys held stay published and the error says why. A document that
    /// parses but holds no usable key is a failure too: it never replaces keys
    /// that work.
    @discardableResult
    public func refresh(
        issuer: String, from source: some KeySource, etag: String? = nil
    ) throws(KeySourceError) -> KeyRefreshOutcome {
        switch try source.fetch(ifNoneMatch: etag) {
        case .notModified(let freshness):
            return .notModified(freshness)
        case .document(let bytes, let freshness):
            let keys = try Self.parse(bytes)
            publish(keys, forIssuer: issuer)
            return .updated(keys, freshness)
        }
    }

    /// A key document as a key set, refusing documents with no usable key.
    public static func parse(_ document: [UInt8]) throws(KeySourceError) -> JWKSet {
        let keys: JWKSet
        do { keys = try JWKSet(json: document) } catch {
            let notJSON = error.reason.hasPrefix("not valid JSON")
            throw KeySourceError(notJSON ? .notJSON : .badDocument, "not a key set: \(error)")
        }
        guard !keys.keys.isEmpty else {
            let why = keys.rejected.prefix(3).map(\.description).joined(separator: "; ")
            throw KeySourceError(
                .badDocument, keys.rejected.isEmpty ? "the key set is empty" : "no usable key (\(why))")
        }
        return keys
    }
}
