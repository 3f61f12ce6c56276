import XCTest

@testable import JWTKernel

/// Routing by `iss`, per-issuer keys and policies, rotation and removal through the store.
final class MultiIssuerVerifierTests: XCTestCase {
    let a = "https://a.example", b = "https://b.example"

    func verifier(_ store: KeyStore, cache: VerifiedTokenCache? = nil) -> MultiIssuerVerifier {
        MultiIssuerVerifier(
            store: store,
            issuers: [
                IssuerConfiguration(issuer: a, policy: ClaimsPolicy(audiences: ["app-a"])),
                IssuerConfiguration(issuer: b, policy: ClaimsPolicy(audiences: ["app-b"])),
            ], cache: cache)
    }

    func store(a aKids: [String], b bKids: [String]) throws -> KeyStore {
        let store = KeyStore()
        store.publish(try JWKSet(json: StoreKit.jwks(aKids)), forIssuer: a)
        store.publish(try JWKSet(json: StoreKit.jwks(bKids)), forIssuer: b)
        return store
    }

    func testRoutesEachIssuerToItsOwnKeysAndPolicy() throws {
        let v = verifier(try store(a: ["a1"], b: ["b1"]))
        XCTAssertNil(v.check(StoreKit.token(kid: "a1", iss: a, aud: "app-a")))
        XCTAssertNil(v.check(StoreKit.token(kid: "b1", iss: b, aud: "app-b")))
        XCTAssertEqual(try v.verify(StoreKit.token(kid: "b1", iss: b, aud: "app-b")).issuer, b)
        // Each issuer's own policy.
        XCTAssertEqual(v.check(StoreKit.token(kid: "a1", iss: a, aud: "app-b"))?.code, .badAudience)
        // A kid of another issuer is unknown here: keys never cross issuers.
        XCTAssertEqual(v.check(StoreKit.token(kid: "b1", iss: a, aud: "app-a"))?.code, .unknownKid)
    }

    func testSameKidAtTwoIssuersVerifiesOnlyWithTheNamedIssuersKey() throws {
        let store = KeyStore()
        store.publish(
            JWKSet(keys: [try VerificationKey(hmacSecret: StoreKit.secret("A"), kid: "k", algorithm: .hs256)]),
            forIssuer: a)
        store.publish(
            JWKSet(keys: [try VerificationKey(hmacSecret: StoreKit.secret("B"), kid: "k", algorithm: .hs256)]),
            forIssuer: b)
        let v = verifier(store)
        XCTAssertNil(v.check(StoreKit.token(kid: "k", iss: a, aud: "app-a", secretOf: "A")))
        // Signed with A's key but claiming B: checked only with B's key.
        XCTAssertEqual(v.check(StoreKit.token(kid: "k", iss: b, aud: "app-b", secretOf: "A"))?.code, .badSignature)
    }

    func testUnknownIssuerMissingIssAndKeysUnavailable() throws {
        let store = KeyStore()
        store.publish(try JWKSet(json: StoreKit.jwks(["a1"])), forIssuer: a)
        let v = verifier(store)
        XCTAssertEqual(
            v.check(StoreKit.token(kid: "a1", iss: "https://evil.example", aud: "app-a"))?.code, .unknownIssuer)
        XCTAssertEqual(v.check(StoreKit.token(kid: "b1", iss: b, aud: "app-b"))?.code, .keysUnavailable)
        store.register(issuer: b)
        XCTAssertEqual(v.check(StoreKit.token(kid: "b1", iss: b, aud: "app-b"))?.code, .keysUnavailable)
        let noIss = HS256Minter(secret: StoreKit.secret("a1"), kid: "a1").token(
            claims: #"{"aud":"app-a","exp":4000000000}"#)
        XCTAssertEqual(v.check(noIss)?.code, .missingClaim)
        let numericIss = HS256Minter(secret: StoreKit.secret("a1"), kid: "a1").token(
            claims: #"{"iss":1,"exp":4000000000}"#)
        XCTAssertEqual(v.check(numericIss)?.code, .badClaimType)
        let duplicateIss = HS256Minter(secret: StoreKit.secret("a1"), kid: "a1")
            .token(claims: #"{"iss":"https://evil.example","iss":"\#(a)","aud":"app-a","exp":4000000000}"#)
        XCTAssertEqual(v.check(duplicateIss)?.code, .malformed)
        XCTAssertEqual(v.check("not.a.token")?.code, .malformed)
        XCTAssertEqual(v.check("")?.code, .malformed)
    }

    func testEscapedIssRoutesByItsDecodedValue() throws {
        let v = verifier(try store(a: ["a1"], b: ["b1"]))
        let escaped = #"https:\/\/a.example"#
        XCTAssertNil(v.check(StoreKit.token(kid: "a1", iss: escaped, aud: "app-a")))
    }

    func testRotationAndRemovalTakeEffectAtOnceEvenForCachedTokens() throws {
        let store = try store(a: ["old"], b: ["b1"])
        let v = verifier(store, cache: VerifiedTokenCache())
        let oldToken = StoreKit.token(kid: "old", iss: a, aud: "app-a")
        let newToken = StoreKit.token(kid: "new", iss: a, aud: "app-a")
        XCTAssertNil(v.check(oldToken))
        XCTAssertNil(v.check(oldToken))  // now a cache hit
        XCTAssertEqual(v.check(newToken)?.code, .unknownKid)
        store.publish(try JWKSet(json: StoreKit.jwks(["old", "new"])), forIssuer: a)
        XCTAssertNil(v.check(newToken))
        XCTAssertNil(v.check(oldToken))
        store.publish(try JWKSet(json: StoreKit.jwks(["new"])), forIssuer: a)
        XCTAssertEqual(v.check(oldToken)?.code, .unknownKid, "a removed key must stop verifying, cached or not")
        XCTAssertNil(v.check(newToken))
        XCTAssertNil(v.check(StoreKit.token(kid: "b1", iss: b, aud: "app-b")))
        store.withdrawKeys(forIssuer: a)
        XCTAssertEqual(v.check(newToken)?.code, .keysUnavailable)
    }

    func testUnknownKidReachesTheIssuersListenerAndStaleUseIsCounted() throws {
        final class Listener: UnknownKidListener, @unchecked Sendable {
            let calls = AtomicCounter()
            func unknownKid() { calls.increment() }
        }
        let store = try store(a: ["a1"], b: ["b1"])
        let listener = Listener()
        store.register(issuer: a, unknownKidListener: listener)
        let v = verifier(store)
        XCTAssertEqual(v.check(StoreKit.token(kid: "zz", iss: a, aud: "app-a"))?.code, .unknownKid)
        XCTAssertEqual(v.check(StoreKit.token(kid: "zz", iss: b, aud: "app-b"))?.code, .unknownKid)
        XCTAssertEqual(listener.calls.current, 1)
        XCTAssertEqual(store.entry(forIssuer: a)?.hooks.unknownKids.current, 1)
        store.setStale(true, forIssuer: a)
        XCTAssertNil(v.check(StoreKit.token(kid: "a1", iss: a, aud: "app-a")))
        XCTAssertEqual(store.entry(forIssuer: a)?.hooks.staleServed.current, 1)
    }

    func testCacheHitsUnderStaleKeysAreCountedAsStaleServed() throws {
        let store = try store(a: ["a1"], b: ["b1"])
        let cache = VerifiedTokenCache()
        let v = verifier(store, cache: cache)
        let token = StoreKit.token(kid: "a1", iss: a, aud: "app-a")
        XCTAssertNil(v.check(token))
        XCTAssertEqual(cache.count, 1)
        store.setStale(true, forIssuer: a)
        for _ in 0..<3 { XCTAssertNil(v.check(token)) }
        XCTAssertEqual(cache.count, 1, "the three answers came from the cache")
        XCTAssertEqual(store.entry(forIssuer: a)?.hooks.staleServed.current, 3)
        store.setStale(false, forIssuer: a)
        XCTAssertNil(v.check(token))
        XCTAssertEqual(store.entry(forIssuer: a)?.hooks.staleServed.current, 3, "fresh keys count nothing")
    }

    func testPolicyStillChecksIssAndExplicitIssuersAreKept() throws {
        let store = try store(a: ["a1"], b: ["b1"])
        let v = MultiIssuerVerifier(store: store, issuers: [IssuerConfiguration(issuer: a)])
        XCTAssertEqual(v.verifier(forIssuer: a)?.policy.issuers, [a])
        XCTAssertNil(v.verifier(forIssuer: b))
    }

    func testFixedKeyVerifierIsUnchanged() throws {
        let keys = try JWKSet(json: StoreKit.jwks(["k"]))
        let v = JWTVerifier(keys: keys, policy: ClaimsPolicy(issuers: [a]))
        XCTAssertNil(v.check(StoreKit.token(kid: "k", iss: a)))
        XCTAssertNil(v.replacingKeys(keys).check(StoreKit.token(kid: "k", iss: a)))
    }
}
