// FuzzKeyStore's second thread: runs the input's high-bit operations on its own two issuers while
// the fuzzing thread runs the rest, both on one store (and so on shared stripes). It checks its own
// issuers exactly, as the fuzzing thread does for its own.
import Dispatch
import Foundation
import FuzzSupport
@_spi(Internals) import JWTKernel

// Safety: @unchecked because the job fields are written by the fuzzing thread before `go.signal()`
// and read by the writer thread after `go.wait()`, and `models` the other way round through `done`:
// the semaphores order every access.
final class ConcurrentWriter: @unchecked Sendable {
    /// The prepared sets this thread publishes: tokens of its issuers signed by other keys never verify.
    static let publishedSets = [2, 3]

    private let go = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private var store: KeyStore?
    private var verifier: MultiIssuerVerifier?
    private var ops: [UInt8] = []
    private var repeats = 1
    private var models: [IssuerModel] = []

    init() {
        let thread = Thread { [unowned self] in
            while true {
                go.wait()
                run()
                done.signal()
            }
        }
        thread.start()
    }

    func start(store: KeyStore, verifier: MultiIssuerVerifier, ops: [UInt8], repeats: Int) {
        self.store = store
        self.verifier = verifier
        self.ops = ops
        self.repeats = repeats
        go.signal()
    }

    /// Waits for the thread's script to end; returns what it left in its issuers.
    func join() -> [IssuerModel] {
        done.wait()
        store = nil
        verifier = nil
        return models
    }

    private func run() {
        guard let store, let verifier else { return }
        models = [IssuerModel](repeating: .unregistered, count: writerIssuers.count)
        for _ in 0..<repeats {
            for at in stride(from: 0, to: ops.count - 1, by: 2) {
                let op = ops[at] & 0x7f, arg = ops[at + 1]
                let c = Int(arg & 1)
                let issuer = writerIssuers[c]
                switch op % 6 {
                case 0:
                    let set = PreparedKeys.sets[Self.publishedSets[Int(arg >> 1 & 1)]]
                    let stale = arg & 0x40 != 0
                    store.publish(set, forIssuer: issuer, stale: stale)
                    models[c] = .registered(keys: set, stale: stale)
                case 1:
                    store.withdrawKeys(forIssuer: issuer)
                    if case .registered = models[c] { models[c] = .registered(keys: nil, stale: false) }
                case 2:
                    store.remove(issuer: issuer)
                    models[c] = .unregistered
                case 3:
                    let stale = arg & 0x40 != 0
                    store.setStale(stale, forIssuer: issuer)
                    if case .registered(let keys, _) = models[c] { models[c] = .registered(keys: keys, stale: stale) }
                case 4:
                    store.register(issuer: issuer)
                    if case .unregistered = models[c] { models[c] = .registered(keys: nil, stale: false) }
                default:
                    let key = Int(arg >> 1) % PreparedKeys.keyCount
                    checkOwned(verifier, store, issuer: mainIssuers.count + c, key: key, model: models[c])
                }
                checkEntry(store, issuer: issuer, model: models[c])
            }
        }
    }
}
