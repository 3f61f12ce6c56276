import Foundation
import JWTKernelTestSupport

@testable import JWTKernel
@testable import JWTKernelRemote

/// A refresher clock tests move by hand.
final class ManualClock: RefreshClock, @unchecked Sendable {
    private let lock = NSLock()
    private var time: Double
    init(_ time: Double = 1000) { self.time = time }
    func now() -> Double { lock.withLock { time } }
    func advance(_ seconds: Double) { lock.withLock { time += seconds } }
}

/// HMAC key sets and tokens for the refresher tests (each key's secret derives from its kid).
enum RemoteKit {
    static let issuer = "https://issuer.test"

    // The key sets and tokens are JWTKernelTestSupport's HMACTestKeys (shared with the integrations' tests).
    static func secret(_ kid: String) -> String { HMACTestKeys.secret(kid) }
    static func jwks(_ kids: [String]) -> String { HMACTestKeys.jwks(kids) }
    static func token(_ server: LoopbackServer, kid: String, iss: String = issuer) -> String {
        HMACTestKeys.token(on: server, kid: kid, iss: iss)
    }

    /// A structurally valid token naming `kid` whose signature is never reached.
    static func unsignedToken(kid: String, iss: String = issuer) -> String {
        Base64URL.encode(Array(#"{"alg":"HS256","kid":"\#(kid)"}"#.utf8)) + "."
            + Base64URL.encode(Array(#"{"iss":"\#(iss)","exp":4000000000}"#.utf8)) + "."
            + Base64URL.encode([UInt8](repeating: 1, count: 32))
    }

    static func verifier(_ store: KeyStore, issuers: [String] = [issuer]) -> MultiIssuerVerifier {
        MultiIssuerVerifier(store: store, issuers: issuers.map { IssuerConfiguration(issuer: $0) })
    }

    static func elapsed(_ body: () throws -> Void) rethrows -> Double {
        let start = MonotonicClock().now()
        try body()
        return MonotonicClock().now() - start
    }

    /// Polls `condition` every 10 ms for up to `seconds`.
    static func eventually(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let end = MonotonicClock().now() + seconds
        while MonotonicClock().now() < end {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }
}
