import CCurl
import JWTKernel

/// A refresher's stop as its transfers see it. Each transfer waits on a curl multi handle of its own
/// (CurlTransfer) registered here, and checks `isStopped` before it starts and whenever its wait returns;
/// `stop()` sets the flag and wakes every registered handle (`curl_multi_wakeup`, callable from any thread),
/// so a fetch in progress is cut at once instead of running out its timeouts, and none starts afterwards.
// Safety: @unchecked because `stopped` and `waiting` are read and written only under `lock`.
final class FetchStop: @unchecked Sendable {
    /// Only its lock is used (as the refresher's `gate`): pthread, which ThreadSanitizer understands.
    private let lock = RefresherSignal()
    private var stopped = false
    /// The multi handles of the transfers in progress; each leaves before its handle is cleaned up, so a
    /// wake-up never reaches a freed handle.
    private var waiting: [UnsafeMutableRawPointer] = []

    var isStopped: Bool { lock.withLock { stopped } }

    /// Cuts every registered transfer and refuses new ones until `resume()`.
    func stop() {
        lock.withLock {
            stopped = true
            for multi in waiting { _ = curl_multi_wakeup(multi) }
        }
    }

    /// For `KeyRefresher.start()` after a `stop()`.
    func resume() { lock.withLock { stopped = false } }

    /// Registers a transfer's multi handle; false (register nothing) once stopped: the transfer must not start.
    func enter(_ multi: UnsafeMutableRawPointer) -> Bool {
        lock.withLock {
            guard !stopped else { return false }
            waiting.append(multi)
            return true
        }
    }

    func leave(_ multi: UnsafeMutableRawPointer) {
        lock.withLock { waiting.removeAll { $0 == multi } }
    }

    /// What a cut transfer throws. The refresher never records it: a fetch cut by a stop is not a failure.
    static let cut = KeySourceError(.other, "fetch cut: the refresher is stopping")
}
