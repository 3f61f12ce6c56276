import CCurl
import JWTKernel

extension CurlTransfer {
    /// The longest single wait: a backstop only. `FetchStop.stop()` wakes the wait at once; should a wake-up
    /// ever be lost, the flag is still seen within this, which keeps `KeyRefresher.stop()` within its bound.
    static let pollMilliseconds: Int32 = 200

    /// What `curl_easy_perform` does (its own multi handle, poll, perform, until done), on a multi handle
    /// that `stop` can wake: `curl_easy_perform` waits in a poll nothing outside can interrupt, for up to
    /// the whole timeout. Returns the transfer's result; throws `FetchStop.cut` once `stop` is stopped.
    static func perform(_ easy: UnsafeMutableRawPointer, stop: FetchStop?) throws(KeySourceError) -> CURLcode {
        guard let multi = curl_multi_init() else { throw KeySourceError(.other, "libcurl could not create a handle") }
        defer { curl_multi_cleanup(multi) }
        guard curl_multi_add_handle(multi, easy) == CURLM_OK else {
            throw KeySourceError(.other, "libcurl could not start the transfer")
        }
        // Removed before the multi handle is cleaned up and the easy handle freed (curl's documented order).
        defer { curl_multi_remove_handle(multi, easy) }
        if let stop {
            guard stop.enter(multi) else { throw FetchStop.cut }
        }
        // Left first (defer order), so `stop()` never wakes a handle being cleaned up.
        defer { stop?.leave(multi) }

        var running: Int32 = 1
        while true {
            let code = curl_multi_perform(multi, &running)
            guard code == CURLM_OK else { throw multiError(code) }
            if running == 0 { break }
            if stop?.isStopped == true { throw FetchStop.cut }
            // curl shortens the wait to its own next timeout (connect, total, retries).
            let polled = curl_multi_poll(multi, nil, 0, pollMilliseconds, nil)
            guard polled == CURLM_OK else { throw multiError(polled) }
            if stop?.isStopped == true { throw FetchStop.cut }
        }
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            if message.pointee.msg == CURLMSG_DONE { return message.pointee.data.result }
        }
        return CURLE_GOT_NOTHING  // not reached: a finished transfer leaves its CURLMSG_DONE
    }

    private static func multiError(_ code: CURLMcode) -> KeySourceError {
        // Safety: curl_multi_strerror returns a static NUL-terminated string.
        KeySourceError(.other, String(cString: curl_multi_strerror(code)))
    }
}
