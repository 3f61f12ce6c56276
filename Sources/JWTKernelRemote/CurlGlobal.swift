import CCurl

/// libcurl's process-wide setup, done once on first use (a Swift global is
/// initialized exactly once, thread-safely). It starts no thread; with the
/// OpenSSL backend it only initializes OpenSSL, which the kernel shares.
enum CurlGlobal {
    static let ready: Bool = jkernel_curl_global_init() == CURLE_OK
}
