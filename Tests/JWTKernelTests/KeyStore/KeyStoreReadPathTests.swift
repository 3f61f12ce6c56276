import Foundation
import XCTest

@testable import JWTKernel

/// The store's lock-free read path: the hashed index in each stripe snapshot, and each
/// thread's cached snapshots, checked against the stripe's generation on every lookup.
final class KeyStoreReadPathTests: XCTestCase {
    func testAThousandIssuersInOneStripeAreEachFoundAndOthersAreNot() throws {
        let store = KeyStore(stripes: 1)
        let keys = try JWKSet(json: StoreKit.jwks(["k"]))
        for i in 0..<1000 { store.publish(keys, forIssuer: "https://t\(i).example") }
        for i in 0..<1000 {
            XCTAssertEqual(Self.lookup(store, "https://t\(i).example")?.issuer.name, "https://t\(i).example")
        }
        // Same length, near names, prefixes: no false match.
        for miss in ["https://t1000.example", "https://t1.exampl", "https://t1.examplf", "", "https://t01.example"] {
            XCTAssertNil(Self.lookup(store, miss), miss)
        }
        // Removals in the middle of probe sequences keep every other issuer reachable.
        for i in stride(from: 0, to: 1000, by: 3) { store.remove(issuer: "https://t\(i).example") }
        for i in 0..<1000 {
            XCTAssertEqual(Self.lookup(store, "https://t\(i).example") != nil, i % 3 != 0, "t\(i)")
        }
        XCTAssertEqual(store.issuers.count, 666)
    }

    func testAKeyRemovedOnAnotherThreadStopsVerifyingAtTheNextLookupOnThisThread() throws {
        let iss = "https://a.example"
        let store = KeyStore()
        store.publish(try JWKSet(json: StoreKit.jwks(["old", "keep"])), forIssuer: iss)
        let v = MultiIssuerVerifier(store: store, issuers: [IssuerConfiguration(issuer: iss)])
        let old = StoreKit.token(kid: "old", iss: iss), keep = StoreKit.token(kid: "keep", iss: iss)
        // This thread now caches the stripe's snapshot holding "old".
        XCTAssertNil(v.check(old))
        XCTAssertNil(v.check(keep))
        let newKeys = try JWKSet(json: StoreKit.jwks(["keep", "new"]))
        let published = expectation(description: "published")
        Thread {
            store.publish(newKeys, forIssuer: iss)
            published.fulfill()
        }.start()
        wait(for: [published], timeout: 10)
        XCTAssertEqual(v.check(old)?.code, .unknownKid)
        XCTAssertNil(v.check(keep))
        XCTAssertNil(v.check(StoreKit.token(kid: "new", iss: iss)))
        store.withdrawKeys(forIssuer: iss)
        XCTAssertEqual(v.check(keep)?.code, .keysUnavailable)
    }

    func testOneThreadReadingMoreStoresThanItCachesGetsEachStoresOwnKeys() throws {
        // More stores than a thread's cache has views: views are dropped and rebuilt.
        let stores = (0..<(KeyStoreReaderCache.viewCount * 3)).map { _ in KeyStore(stripes: 2) }
        for (n, store) in stores.enumerated() {
            store.publish(try JWKSet(json: StoreKit.jwks(["s\(n)"])), forIssuer: "i")
        }
        for _ in 0..<3 {
            for (n, store) in stores.enumerated() {
                XCTAssertEqual(Self.lookup(store, "i")?.keys?.keys.map(\.kid), ["s\(n)"])
            }
        }
        // A store made after others were freed never sees their cached snapshots.
        var transient: KeyStore? = KeyStore(stripes: 2)
        transient!.publish(try JWKSet(json: StoreKit.jwks(["gone"])), forIssuer: "i")
        XCTAssertNotNil(Self.lookup(transient!, "i"))
        transient = nil
        let fresh = KeyStore(stripes: 2)
        XCTAssertNil(Self.lookup(fresh, "i"))
    }

    func testALookupNestedInAnUnknownKidListenerThatRepublishesKeepsTheOuterLookupValid() throws {
        // The listener runs inside the outer lookup, which borrows the stripe's snapshot;
        // it publishes (superseding that snapshot) and verifies on the same thread, which
        // replaces this thread's cached snapshot. The outer one must stay alive until the
        // outer lookup ends (AddressSanitizer would see a use after free otherwise).
        let iss = "https://a.example"
        let store = KeyStore(stripes: 1)
        final class Listener: UnknownKidListener, @unchecked Sendable {
            var action: () -> Void = {}
            var calls = 0
            func unknownKid() {
                calls += 1
                action()
            }
        }
        let listener = Listener()
        store.register(issuer: iss, unknownKidListener: listener)
        store.publish(try JWKSet(json: StoreKit.jwks(["k1"])), forIssuer: iss)
        let v = MultiIssuerVerifier(store: store, issuers: [IssuerConfiguration(issuer: iss)])
        let next = try JWKSet(json: StoreKit.jwks(["k1", "k2"]))
        var nested: JWTError?? = .none
        listener.action = {
            store.publish(next, forIssuer: iss)
            nested = .some(v.check(StoreKit.token(kid: "k2", iss: iss)))
            for i in 0..<50 { store.publish(try! JWKSet(json: StoreKit.jwks(["k1", "k2", "x\(i)"])), forIssuer: iss) }
        }
        XCTAssertEqual(v.check(StoreKit.token(kid: "k2", iss: iss))?.code, .unknownKid)
        XCTAssertEqual(listener.calls, 1)
        XCTAssertEqual(nested, .some(nil), "the nested lookup saw the republished keys")
        listener.action = {}
        XCTAssertNil(v.check(StoreKit.token(kid: "k2", iss: iss)))
        XCTAssertEqual(store.entry(forIssuer: iss)?.hooks.unknownKids.current, 1)
    }

    func testManyThreadsSeeEveryIssuerWhileOthersAreRepublished() throws {
        // Readers of 200 issuers in 4 stripes while a writer republishes and adds issuers:
        // every lookup finds its issuer with its own keys (run under ThreadSanitizer too).
        let store = KeyStore(stripes: 4)
        let base = 200
        for i in 0..<base { store.publish(try JWKSet(json: StoreKit.jwks(["k\(i)"])), forIssuer: "iss-\(i)") }
        let sets = try (0..<base).map { try JWKSet(json: StoreKit.jwks(["k\($0)"])) }
        let stop = AtomicCounter(), wrong = AtomicCounter()
        let writer = Thread {
            var n = 0
            while stop.current == 0 {
                store.publish(sets[n % base], forIssuer: "iss-\(n % base)")
                store.publish(sets[0], forIssuer: "extra-\(n % 64)")
                n += 1
            }
            stop.increment()
        }
        writer.start()
        DispatchQueue.concurrentPerform(iterations: 4) { t in
            for round in 0..<300 {
                let i = (round * 7 + t * 13) % base
                let kids = Self.lookup(store, "iss-\(i)")?.keys?.keys.map(\.kid)
                if kids != ["k\(i)"] { wrong.increment() }
            }
        }
        stop.increment()
        while stop.current < 2 { usleep(100) }
        XCTAssertEqual(wrong.current, 0)
    }

    /// The hot path's lookup by bytes (the entry retained for the test).
    private static func lookup(_ store: KeyStore, _ issuer: String) -> IssuerKeys? {
        Array(issuer.utf8).withUnsafeBytes { store.entry(issuerBytes: $0) }
    }
}
