import CCurl
import JWTKernel

/// A key URL checked before any request: http(s) only, HTTPS unless the host
/// is loopback or plain HTTP was explicitly allowed. Parsed with curl's own URL
/// parser, so what is checked is exactly what curl will connect to.
struct FetchURL: Sendable, Equatable {
    let text: String
    let scheme: String
    let host: String
    let port: Int

    init(_ text: String, allowInsecureHTTP: Bool) throws(KeySourceError) {
        guard let parts = Self.parse(text) else { throw KeySourceError(.refusedURL, "not a valid URL") }
        guard parts.scheme == "https" || parts.scheme == "http" else {
            throw KeySourceError(.refusedURL, "only https (or http to loopback) URLs are fetched")
        }
        if parts.scheme == "http", !allowInsecureHTTP, !Self.isLoopback(parts.host) {
            throw KeySourceError(.refusedURL, "plain http is allowed only to loopback unless explicitly enabled")
        }
        self.text = text
        self.scheme = parts.scheme
        self.host = parts.host
        self.port = parts.port
    }

    /// Same origin: scheme, host and port; or an upgrade from http to https on the same host.
    func allowsRedirect(to other: FetchURL) -> Bool {
        guard host == other.host else { return false }
        if scheme == other.scheme { return port == other.port }
        return scheme == "http" && other.scheme == "https"
    }

    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "[::1]" || host == "::1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    private static func parse(_ text: String) -> (scheme: String, host: String, port: Int)? {
        guard let url = curl_url() else { return nil }
        defer { curl_url_cleanup(url) }
        // Safety: `text` is NUL-terminated for the call; curl copies what it keeps.
        guard curl_url_set(url, CURLUPART_URL, text, 0) == CURLUE_OK else { return nil }
        func part(_ which: CURLUPart, _ flags: UInt32 = 0) -> String? {
            var out: UnsafeMutablePointer<CChar>?
            guard curl_url_get(url, which, &out, flags) == CURLUE_OK, let out else { return nil }
            // Safety: curl returned a NUL-terminated string we own until curl_free.
            defer { curl_free(out) }
            return String(validatingCString: out)
        }
        guard let scheme = part(CURLUPART_SCHEME)?.lowercased(), let host = part(CURLUPART_HOST)?.lowercased(),
            let port = part(CURLUPART_PORT, UInt32(CURLU_DEFAULT_PORT)).flatMap({ Int($0) })
        else { return nil }
        return (scheme, host, port)
    }
}
