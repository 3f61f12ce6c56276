import XCTest

@testable import JWTKernel

/// The key store alone: publication, rotation, removal, stripes, refresh from a source.
final class KeyStoreTests: XCTestCase {
    func testStripeCountIsAPowerOfTwo() {
        XCTAssertEqual(KeyStore(stripes: 10).stripeCount, 16)
        XCTAssertEqual(KeyStore(stripes: 1).stripeCount, 1)
        XCTAssertEqual(KeyStore(stripes: 0).stripeCount, 1)
        XCTAssertEqual(KeyStore().stripeCount, KeyStore.defaultStripeCount)
    }

    func testManyIssuersInFewStripesStayApart() throws {
        let store = KeyStore(stripes: 2)
        for i in 0..<50 {
            store.publish(try JWKSet(json: StoreKit.jwks(["k\(i)"])), forIssuer: "https://iss\(i).example")
        }
        XCTAssertEqual(store.issuers.count, 50)
        for i in 0..<50 {
            XCTAssertEqual(store.keys(forIssuer: "https://iss\(i).example")?.keys.map(\.kid), ["k\(i)"])
        }
        XCTAssertNil(store.keys(forIssuer: "https://iss50.example"))
    }

    func testRegisterWithoutKeysThenPublishKeepsListener() throws {
        final class Listener: UnknownKidListener, @unchecked Sendable {
            var calls = 0; func unknownKid() { calls += 1 }
        }
        let store = KeyStore()
        let listener = Listener()
        store.register(issuer: "a", unknownKidListener: listener)
        XCTAssertNotNil(store.entry(forIssuer: "a"))
        XCTAssertNil(store.keys(forIssuer: "a"))
        store.publish(try JWKSet(json: StoreKit.jwks(["k1"])), forIssuer: "a")
        XCTAssertTrue(store.entry(forIssuer: "a")?.hooks.unknownKidListener === listener)
        store.withdrawKeys(forIssuer: "a")
        XCTAssertNil(store.keys(forIssuer: "a"))
        XCTAssertNotNil(store.entry(forIssuer: "a"))
        store.remove(issuer: "a")
        XCTAssertNil(store.entry(forIssuer: "a"))
    }

    func testRefreshFromSourceParsesPublishesAndUsesETag() throws {
        let store = KeyStore()
        let source = InMemoryKeySource(StoreKit.jwks(["k1", "k2"]))
        source.maxAge = 300
        guard case .updated(let keys, let freshness) = try store.refresh(issuer: "a", from: source) else {
            return XCTFail("expected new keys")
        }
        XCTAssertEqual(keys.keys.count, 2)
        XCTAssertEqual(freshness.maxAge, 300)
        XCTAssertEqual(store.keys(forIssuer: "a")?.keys.count, 2)
        guard case .notModified = try store.refresh(issuer: "a", from: source, etag: freshness.etag) else {
            return XCTFail("expected not modified")
        }
        XCTAssertEqual(source.fetches, 2)
    }

    func testBadDocumentsNeverReplaceWorkingKeys() throws {
        let store = KeyStore()
        let source = InMemoryKeySource(StoreKit.jwks(["k1"]))
        try store.refresh(issuer: "a", from: source)
        for (doc, reason) in [
            ("not json", KeySourceError.Reason.notJSON), (#"{"keys":[]}"#, .badDocument),
            (#"{"keys":[{"kty":"oct","kid":"short","k":"AAAA"}]}"#, .badDocument), ("[1]", .badDocument),
        ] {
            source.set(Array(doc.utf8))
            XCTAssertThrowsError(try store.refresh(issuer: "a", from: source), doc) { error in
                XCTAssertEqual((error as? KeySourceError)?.reason, reason, "\(doc): \(error)")
            }
            XCTAssertEqual(store.keys(forIssuer: "a")?.keys.map(\.kid), ["k1"])
        }
        source.fail(with: KeySourceError(.timeout, "slow"))
        XCTAssertThrowsError(try store.refresh(issuer: "a", from: source))
        XCTAssertEqual(store.keys(forIssuer: "a")?.keys.map(\.kid), ["k1"])
    }

    func testDocumentWithOneBadKeyLoadsTheRestAndListsTheReason() throws {
        let store = KeyStore()
        let doc = #"{"keys":[\#(StoreKit.jwk(kid: "good")),{"kty":"oct","kid":"weak","alg":"HS256","k":"AAAA"}]}"#
        guard case .updated(let keys, _) = try store.refresh(issuer: "a", from: InMemoryKeySource(Array(doc.utf8)))
        else {
            return XCTFail("expected keys")
        }
        XCTAssertEqual(keys.keys.map(\.kid), ["good"])
        XCTAssertEqual(keys.rejected.map(\.kid), ["weak"])
    }
}
