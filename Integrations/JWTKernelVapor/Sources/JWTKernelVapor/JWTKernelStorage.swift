import JWTKernel
import JWTKernelRemote
import JWTKernelServer
import NIOConcurrencyHelpers
import Vapor

/// What `app.jwtKernel` keeps: one key store and one refresher for the whole application (every issuer's
/// keys fetched by one thread), the default verifier and one verifier per configured provider. Written while
/// the application is configured, read by every request (under a lock held for a dictionary lookup: the
/// verification itself runs outside it).
final class JWTKernelStorage: Sendable {
    let store: KeyStore
    let refresher: KeyRefresher
    private let state = NIOLockedValueBox(State())

    struct State {
        var realm = "api"
        var verifier: MultiIssuerVerifier?
        var providers: [String: MultiIssuerVerifier] = [:]
    }

    init(store: KeyStore, refresher: KeyRefresher) {
        self.store = store
        self.refresher = refresher
    }

    func read<T>(_ body: (State) -> T) -> T { state.withLockedValue { body($0) } }
    func write(_ body: (inout State) -> Void) { state.withLockedValue { body(&$0) } }

    struct Key: StorageKey {
        typealias Value = JWTKernelStorage
    }
}

/// Ties the refresher's thread to the application: started when it boots (before the server accepts
/// connections; the first fetches run while it starts), stopped when it shuts down. Its events (fetch
/// failures, stale keys, withdrawals, refreshes) go to the application's logger at the levels JWTKernelServer
/// gives them. (Vapor 4 runs no swift-service-lifecycle group, so `KeyRefresherService` is not used here.)
/// The refresher is looked up when the event comes, so `use(refresher:)` may replace it after this handler
/// was registered.
struct RefresherLifecycle: LifecycleHandler {
    func didBoot(_ application: Application) throws {
        guard let refresher = application.jwtKernelStorage?.refresher else { return }
        let logger = application.logger
        refresher.observe { logger.log($0) }
        refresher.start()
    }

    func shutdown(_ application: Application) {
        application.jwtKernelStorage?.refresher.stop()
        application.jwtKernelStorage?.refresher.observe(nil)
    }

    /// `stop()` cuts any fetch in progress and joins the thread, within 1 s even with every key URL hanging:
    /// still joined on a Dispatch thread, not on the caller's event loop or cooperative thread.
    func shutdownAsync(_ application: Application) async {
        guard let refresher = application.jwtKernelStorage?.refresher else { return }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                refresher.stop()
                refresher.observe(nil)
                done.resume()
            }
        }
    }
}
