import CCurl
import JWTKernel

/// One HTTP GET through a fresh curl easy handle (never shared between
/// threads, freed before returning). Redirects are not followed here: the
/// caller decides whether the target is acceptable. The transfer runs on a
/// multi handle of its own that a `FetchStop` can wake (CurlTransfer+Multi.swift),
/// so a stopping refresher cuts it at once.
struct CurlTransfer {
    struct Response {
        let status: Int
        let head: HTTPResponseHead
        let body: [UInt8]
        /// The absolute target of a 3xx response.
        let redirectURL: String?
    }

    /// What the callbacks fill in; reached through curl's `void *` user pointer.
    final class Sink {
        var body: ResponseBody
        var head = HTTPResponseHead()
        init(cap: Int) { self.body = ResponseBody(cap: cap) }
    }

    /// `stop`: throws `FetchStop.cut` without a request once it is stopped, and cuts the transfer when it stops.
    static func get(
        _ url: FetchURL, etag: String?, _ config: HTTPKeySourceConfiguration, stop: FetchStop?
    ) throws(KeySourceError) -> Response {
        guard CurlGlobal.ready else { throw KeySourceError(.other, "libcurl could not be initialized") }
        guard let handle = curl_easy_init() else { throw KeySourceError(.other, "libcurl could not create a handle") }
        defer { curl_easy_cleanup(handle) }
        var headers: UnsafeMutablePointer<curl_slist>? = curl_slist_append(nil, "Accept: application/json")
        if let etag, !etag.contains(where: { $0 == "\r" || $0 == "\n" }) {
            headers = curl_slist_append(headers, "If-None-Match: \(etag)")
        }
        defer { curl_slist_free_all(headers) }
        let sink = Sink(cap: config.maxResponseBytes)
        // Safety: the sink outlives the transfer (released after curl_easy_perform returns,
        // by withExtendedLifetime below); curl passes the pointer back to our callbacks only.
        let context = Unmanaged.passUnretained(sink).toOpaque()

        var ok = true
        func set(_ code: CURLcode) { ok = ok && code == CURLE_OK }
        // Safety: every string option is copied by libcurl (CURLOPT string options since 7.17).
        set(jkernel_curl_set_string(handle, CURLOPT_URL, url.text))
        set(jkernel_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"))
        set(jkernel_curl_set_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, "https"))
        set(jkernel_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0))
        set(jkernel_curl_set_long(handle, CURLOPT_NOSIGNAL, 1))
        set(jkernel_curl_set_long(handle, CURLOPT_HTTPGET, 1))
        set(jkernel_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, config.connectTimeoutMilliseconds))
        set(jkernel_curl_set_long(handle, CURLOPT_TIMEOUT_MS, config.totalTimeoutMilliseconds))
        set(jkernel_curl_set_off_t(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(config.maxResponseBytes)))
        set(jkernel_curl_set_long(handle, CURLOPT_SSL_VERIFYPEER, 1))
        set(jkernel_curl_set_long(handle, CURLOPT_SSL_VERIFYHOST, 2))
        if let ca = config.caFile { set(jkernel_curl_set_string(handle, CURLOPT_CAINFO, ca)) }
        set(jkernel_curl_set_string(handle, CURLOPT_ACCEPT_ENCODING, ""))
        set(jkernel_curl_set_string(handle, CURLOPT_USERAGENT, config.userAgent))
        set(jkernel_curl_set_slist(handle, CURLOPT_HTTPHEADER, headers))
        set(jkernel_curl_set_data_function(handle, CURLOPT_WRITEFUNCTION, writeBody))
        set(jkernel_curl_set_pointer(handle, CURLOPT_WRITEDATA, context))
        set(jkernel_curl_set_data_function(handle, CURLOPT_HEADERFUNCTION, readHeader))
        set(jkernel_curl_set_pointer(handle, CURLOPT_HEADERDATA, context))
        guard ok else { throw KeySourceError(.other, "libcurl refused an option") }
        // A cut transfer may be inside name resolution: without this, its cleanup would wait for the resolver
        // thread (up to the DNS timeout). Since curl 7.87; an older curl refuses the option and waits.
        _ = jkernel_curl_set_long(handle, CURLOPT_QUICK_EXIT, 1)

        let code = try withExtendedLifetime(sink) { () throws(KeySourceError) in try perform(handle, stop: stop) }
        if code != CURLE_OK { throw error(code, sink) }

        var status = 0
        var redirect: UnsafeMutablePointer<CChar>?
        _ = jkernel_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &status)
        _ = jkernel_curl_get_string(handle, CURLINFO_REDIRECT_URL, &redirect)
        // Safety: the redirect string belongs to the handle, still alive here; it is copied.
        let target = redirect.flatMap { String(validatingCString: $0) }
        return Response(status: status, head: sink.head, body: sink.body.bytes, redirectURL: target)
    }

    private static func error(_ code: CURLcode, _ sink: Sink) -> KeySourceError {
        // Safety: curl_easy_strerror returns a static NUL-terminated string.
        let text = String(cString: curl_easy_strerror(code))
        switch code {
        case CURLE_WRITE_ERROR where sink.body.overflowed, CURLE_FILESIZE_EXCEEDED:
            return KeySourceError(.tooLarge, "response exceeds \(sink.body.cap) bytes")
        case CURLE_OPERATION_TIMEDOUT: return KeySourceError(.timeout, text)
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return KeySourceError(.connect, text)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CIPHER, CURLE_SSL_ISSUER_ERROR:
            return KeySourceError(.tls, text)
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_BAD_CONTENT_ENCODING:
            return KeySourceError(.truncated, text)
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            return KeySourceError(.refusedURL, text)
        default:
            return KeySourceError(.other, text)
        }
    }
}

/// CURLOPT_WRITEFUNCTION: appends body bytes up to the cap; returning less than
/// given makes curl abort the transfer with CURLE_WRITE_ERROR.
private let writeBody: jkernel_curl_data_fn = { data, size, count, context in
    guard let data, let context else { return 0 }
    // Safety: `context` is the Sink passed as CURLOPT_WRITEDATA, alive for the whole transfer.
    let sink = Unmanaged<CurlTransfer.Sink>.fromOpaque(context).takeUnretainedValue()
    let (n, overflow) = size.multipliedReportingOverflow(by: count)
    guard !overflow else { return 0 }
    // Safety: curl guarantees `n` readable bytes at `data` for the duration of the call.
    return sink.body.append(UnsafeRawBufferPointer(start: data, count: n)) ? n : 0
}

/// CURLOPT_HEADERFUNCTION: one complete header line per call.
private let readHeader: jkernel_curl_data_fn = { data, size, count, context in
    guard let data, let context else { return 0 }
    // Safety: as for writeBody (CURLOPT_HEADERDATA is the same Sink).
    let sink = Unmanaged<CurlTransfer.Sink>.fromOpaque(context).takeUnretainedValue()
    let (n, overflow) = size.multipliedReportingOverflow(by: count)
    guard !overflow else { return 0 }
    sink.head.consume(line: UnsafeRawBufferPointer(start: data, count: n))
    return n
}
