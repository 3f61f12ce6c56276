import Foundation
import JWTKernel
import JWTKernelRemote
import JWTKernelTestSupport
import Logging
import Synchronization

/// A swift-log handler that keeps every record, for assertions.
struct CollectingLogHandler: LogHandler {
    struct Record: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
    }

    final class Store: Sendable {
        let records = Mutex<[Record]>([])
        var all: [Record] { records.withLock { $0 } }
    }

    let store: Store
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        for (k, v) in event.metadata ?? [:] { merged[k] = v }
        let record = Record(level: event.level, message: event.message.description, metadata: merged)
        store.records.withLock { $0.append(record) }
    }

    static func logger() -> (Logger, Store) {
        let store = Store()
        return (Logger(label: "test", factory: { _ in CollectingLogHandler(store: store) }), store)
    }
}

/// HMAC key sets for the loopback JWKS server (each key's secret derives from its kid).
enum ServerKit {
    static let issuer = "https://issuer.test"

    // The key sets and tokens are JWTKernelTestSupport's HMACTestKeys (shared with the integrations' tests).
    static func secret(_ kid: String) -> String { HMACTestKeys.secret(kid) }
    static func jwks(_ kids: [String]) -> String { HMACTestKeys.jwks(kids) }
    static func token(_ server: LoopbackServer, kid: String, iss: String = issuer) -> String {
        HMACTestKeys.token(on: server, kid: kid, iss: iss)
    }

    /// A short policy: backoff and cooldown at their floors, so failures repeat within a test.
    static var fastPolicy: RefreshPolicy {
        var p = RefreshPolicy()
        p.initialBackoff = 0.5
        p.maxBackoff = 5
        p.unknownKidCooldown = 0.5
        p.maxIdleWait = 0.05
        return p
    }

    /// JWTKernelTestSupport's `eventually`.
    static func eventually(_ seconds: Double, _ condition: () -> Bool) async -> Bool {
        await JWTKernelTestSupport.eventually(seconds) { condition() }
    }
}
