import Foundation
import XCTest

@testable import JWTKernel

/// Many threads verify while another rotates the keys every few milliseconds:
/// no verdict may ever be wrong. Run under ThreadSanitizer by scripts/sanitize.sh.
final class KeyRotationStressTests: XCTestCase {
    func testVerdictsStayRightWhileKeysRotate() throws {
        let a = "https://a.example", b = "https://b.example"
        let store = KeyStore(stripes: 4)
        // Generation g publishes kids "g<g>" and "g<g+1>" for issuer a; "stable" stays throughout.
        @Sendable func document(_ g: Int) -> [UInt8] { StoreKit.jwks(["stable", "g\(g)", "g\(g + 1)"]) }
        store.publish(try JWKSet(json: document(0)), forIssuer: a)
        store.publish(try JWKSet(json: StoreKit.jwks(["b"])), forIssuer: b)
        let verifier = MultiIssuerVerifier(
            store: store, issuers: [IssuerConfiguration(issuer: a), IssuerConfiguration(issuer: b)],
            cache: VerifiedTokenCache())
        let stable = StoreKit.token(kid: "stable", iss: a)
        let other = StoreKit.token(kid: "b", iss: b)
        let forged = StoreKit.token(kid: "stable", iss: a, secretOf: "b")
        let neverKid = StoreKit.token(kid: "never", iss: a)
        let generations = 150
        let rotating = (0...generations + 1).map { StoreKit.token(kid: "g\($0)", iss: a) }

        // Generation numbers the rotator has published (read without a lock: a lower bound is enough).
        let published = AtomicCounter()
        let stop = AtomicCounter()
        let wrong = AtomicCounter()
        let checked = AtomicCounter()

        let rotator = Thread {
            for g in 1...generations {
                let keys = try! JWKSet(json: document(g))  // built off the hot path
                store.publish(keys, forIssuer: a)
                published.increment()
                usleep(2000)
            }
            stop.increment()
        }
        rotator.start()

        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            var i = worker
            while stop.current == 0 {
                i += 1
                if verifier.check(stable) != nil { wrong.increment() }
                if verifier.check(other) != nil { wrong.increment() }
                if verifier.check(forged)?.code != .badSignature { wrong.increment() }
                if verifier.check(neverKid)?.code != .unknownKid { wrong.increment() }
                // Kid g<k> is in documents k-1 and k. While the counter reads `low`, the published
                // document is `low` or `low+1`: kid g<low+1> must verify, kid g<low-1> must not.
                let low = published.current
                let fresh = verifier.check(rotating[low + 1])
                if published.current == low, fresh != nil { wrong.increment() }
                if low >= 1, verifier.check(rotating[low - 1])?.code != .unknownKid { wrong.increment() }
                _ = i
                checked.increment()
            }
        }
        rotator.cancel()
        XCTAssertEqual(wrong.current, 0)
        XCTAssertGreaterThan(checked.current, 100)
    }
}
