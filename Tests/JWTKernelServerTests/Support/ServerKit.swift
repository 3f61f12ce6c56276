import Foundation
import JWTKernel
import JWTKernelRemote
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

    static func secret(_ kid: String) -> String { String((kid + String(repeating: "#", count: 40)).prefix(40)) }

    static func jwks(_ kids: [String]) -> String {
        let keys = kids.map { kid in
            #"{"kty":"oct","kid":"\#(kid)","alg":"HS256","k":"\#(Base64URL.encode(Array(secret(kid).utf8)))"}"#
        }
        return #"{"keys":[\#(keys.joined(separator: ","))]}"#
    }

    static func token(_ server: LoopbackServer, kid: String, iss: String = issuer) -> String {
        server.hs256(
            secret: secret(kid), kid: kid, claims: #"{"iss":"\#(iss)","sub":"u","aud":"app","exp":4000000000}"#)
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

    /// Polls `condition` every 10 ms (asynchronously) for up to `seconds`.
    static func eventually(_ seconds: Double, _ condition: () -> Bool) async -> Bool {
        let end = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < end {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }
}
