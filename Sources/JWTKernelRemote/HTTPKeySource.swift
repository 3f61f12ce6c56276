import JWTKernel

/// A key source over HTTP(S): a JWKS, a single JWK, or the Google/Firebase
/// `{kid: PEM}` certificate map (the store's parser tells them apart).
///
/// JSON only (a `Content-Type` that is not JSON is refused), capped in size,
/// bounded in time, never redirected to another host, and HTTPS verified with
/// the system trust store unless the host is loopback or http was explicitly
/// allowed. Each fetch uses its own curl handle, so a source may be shared.
public final class HTTPKeySource: KeySource, CustomStringConvertible {
    public let url: String
    public let configuration: HTTPKeySourceConfiguration
    private let target: FetchURL

    /// Refuses URLs that could never be fetched under `configuration`.
    public init(
        url: String, configuration: HTTPKeySourceConfiguration = HTTPKeySourceConfiguration()
    ) throws(KeySourceError) {
        self.url = url
        self.configuration = configuration
        self.target = try FetchURL(url, allowInsecureHTTP: configuration.allowInsecureHTTP)
    }

    public var description: String { url }

    public func fetch(ifNoneMatch etag: String?) throws(KeySourceError) -> KeyFetch {
        try fetch(ifNoneMatch: etag, stop: nil)
    }

    /// The fetch a `KeyRefresher` makes: `stop` cuts it (every transfer, redirects included) when the
    /// refresher stops, and refuses to start it afterwards (`FetchStop.cut`).
    func fetch(ifNoneMatch etag: String?, stop: FetchStop?) throws(KeySourceError) -> KeyFetch {
        var current = target
        var redirects = 0
        while true {
            let response = try CurlTransfer.get(current, etag: etag, configuration, stop: stop)
            if let fetched = try Self.interpret(
                status: response.status, head: response.head, body: response.body, ifNoneMatch: etag)
            {
                return fetched
            }
            guard redirects < configuration.maxRedirects, let location = response.redirectURL else {
                throw KeySourceError(.redirect, "too many redirects, or a redirect without a target")
            }
            let next = try FetchURL(location, allowInsecureHTTP: configuration.allowInsecureHTTP)
            guard current.allowsRedirect(to: next) else {
                throw KeySourceError(.redirect, "redirect to another host (\(next.host)) refused")
            }
            current = next
            redirects += 1
        }
    }

    /// What one complete response means, without the network: a document, "not modified", or an
    /// error; nil for a redirect (the caller checks and follows its target). SPI for the fuzzer.
    @_spi(Fuzzing) public static func interpret(
        status: Int, head: HTTPResponseHead, body: [UInt8], ifNoneMatch etag: String?
    ) throws(KeySourceError) -> KeyFetch? {
        switch status {
        case 200:
            guard head.isJSONOrUnlabelled else {
                throw KeySourceError(.notJSON, "Content-Type \(head.contentType ?? "") is not JSON")
            }
            return .document(body, KeyFreshness(maxAge: head.maxAge, etag: head.etag))
        case 304:
            return .notModified(KeyFreshness(maxAge: head.maxAge, etag: head.etag ?? etag))
        case 301, 302, 303, 307, 308:
            return nil
        default:
            throw KeySourceError(.httpStatus, "HTTP status \(status)")
        }
    }
}
