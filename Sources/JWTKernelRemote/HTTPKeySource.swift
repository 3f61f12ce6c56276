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
        var current = target
        var redirects = 0
        while true {
            let response = try CurlTransfer.get(current, etag: etag, configuration)
            switch response.status {
            case 200:
                guard response.head.isJSONOrUnlabelled else {
                    throw KeySourceError(.notJSON, "Content-Type \(response.head.contentType ?? "") is not JSON")
                }
                return .document(response.body, KeyFreshness(maxAge: response.head.maxAge, etag: response.head.etag))
            case 304:
                return .notModified(KeyFreshness(maxAge: response.head.maxAge, etag: response.head.etag ?? etag))
            case 301, 302, 303, 307, 308:
                guard redirects < configuration.maxRedirects, let location = response.redirectURL else {
                    throw KeySourceError(.redirect, "too many redirects, or a redirect without a target")
                }
                let next = try FetchURL(location, allowInsecureHTTP: configuration.allowInsecureHTTP)
                guard current.allowsRedirect(to: next) else {
                    throw KeySourceError(.redirect, "redirect to another host (\(next.host)) refused")
                }
                current = next
                redirects += 1
            default:
                throw KeySourceError(.httpStatus, "HTTP status \(response.status)")
            }
        }
    }
}
