import XCTest

@_spi(Internals) @testable import JWTKernel

/// `MultiIssuerVerifier`'s fallback (the C library's any-issuer keys) and its cache probe before routing:
/// the rules the C library's routing is built on (issue 18 section 5).
final class MultiIssuerFallbackTests: XCTestCase {
    let a = "https://a.example"
    let anyIssuer = "\u{0}any"

    func verifier(
        _ store: KeyStore, issuers: [String], fallback: ClaimsPolicy?, cache: VerifiedTokenCache? = nil
    ) -> MultiIssuerVerifier {
        MultiIssuerVerifier(
            store: store, issuers: issuers.map { IssuerConfiguration(issuer: $0) },
            fallback: fallback.map { IssuerConfiguration(issuer: anyIssuer, policy: $0) }, cache: cache)
    }

    func testUnmatchedAndAbsentIssGoToTheFallbackKeysAndPolicy() throws {
        let store = KeyStore()
        store.publish(try JWKSet(json: StoreKit.jwks(["a1"])), forIssuer: a)
        store.publish(try JWKSet(json: StoreKit.jwks(["any1"])), forIssuer: anyIssuer)
        let v = verifier(store, issuers: [a], fallback: ClaimsPolicy(audiences: ["app"]))
        XCTAssertNil(v.check(StoreKit.token(kid: "a1", iss: a)))
        // Another issuer: the fallback's keys and its policy as given (not narrowed to an iss).
        XCTAssertNil(v.check(StoreKit.token(kid: "any1", iss: "https://other.example")))
        XCTAssertEqual(
            v.check(StoreKit.token(kid: "any1", iss: "https://other.example", aud: "x"))?.code, .badAudience)
        let noIss = HS256Minter(secret: StoreKit.secret("any1"), kid: "any1").token(
            claims: #"{"aud":"app","exp":4000000000}"#)
        XCTAssertNil(v.check(noIss))
        // An issuer with its own entry never uses the fallback's keys.
        XCTAssertEqual(v.check(StoreKit.token(kid: "any1", iss: a))?.code, .unknownKid)
        store.withdrawKeys(forIssuer: a)
        XCTAssertEqual(v.check(StoreKit.token(kid: "any1", iss: a))?.code, .keysUnavailable)
        // Without a fallback: unknown_issuer and missing_claim, as before.
        let strict = verifier(store, issuers: [a], fallback: nil)
        XCTAssertEqual(strict.check(StoreKit.token(kid: "any1", iss: "https://other.example"))?.code, .unknownIssuer)
        XCTAssertEqual(strict.check(noIss)?.code, .missingClaim)
    }

    func testOnlyAFallbackRoutesNothing() throws {
        let store = KeyStore()
        let v = verifier(store, issuers: [], fallback: ClaimsPolicy())
        XCTAssertEqual(v.check(StoreKit.token(kid: "any1", iss: a))?.code, .keysUnavailable)
        store.publish(try JWKSet(json: StoreKit.jwks(["any1"])), forIssuer: anyIssuer)
        XCTAssertNil(v.check(StoreKit.token(kid: "any1", iss: a)))
        // Unrouted: even a token that is not one goes to the fallback's verifier, which then refuses it.
        XCTAssertNoThrow(try v.route(of: UnsafeRawBufferPointer(start: nil, count: 0)))
    }

    func outcome(_ v: MultiIssuerVerifier, _ token: String) -> (CacheOutcome, JWTErrorCode?) {
        var outcome = CacheOutcome.notUsed
        var token = token
        let code = token.withUTF8 { bytes -> JWTErrorCode? in
            do throws(JWTError) {
                try v.verify(UnsafeRawBufferPointer(bytes), cacheOutcome: &outcome) { _ in () }
                return nil
            } catch {
                return error.code
            }
        }
        return (outcome, code)
    }

    func testCachedTokensAreRoutedByTheirCachedIss() throws {
        let store = KeyStore()
        store.publish(try JWKSet(json: StoreKit.jwks(["a1"])), forIssuer: a)
        store.publish(try JWKSet(json: StoreKit.jwks(["any1"])), forIssuer: anyIssuer)
        let v = verifier(store, issuers: [a], fallback: ClaimsPolicy(), cache: VerifiedTokenCache())
        let ta = StoreKit.token(kid: "a1", iss: a)
        let tc = StoreKit.token(kid: "any1", iss: "https://c.example")
        XCTAssertEqual(outcome(v, ta).0, .miss)
        XCTAssertEqual(outcome(v, ta).0, .hit)
        XCTAssertNil(outcome(v, ta).1)
        XCTAssertEqual(outcome(v, tc).0, .miss)
        XCTAssertEqual(outcome(v, tc).0, .hit)
        // A rotation at A: A's cached token stops hitting at once; the fallback's is unaffected.
        store.publish(try JWKSet(json: StoreKit.jwks(["a2"])), forIssuer: a)
        let rotated = outcome(v, ta)
        XCTAssertEqual(rotated.0, .miss)
        XCTAssertEqual(rotated.1, .unknownKid)
        XCTAssertEqual(outcome(v, tc).0, .hit)
        // Expired since it was cached: a hit that fails, then a full verification.
        let short = StoreKit.token(kid: "a2", iss: a, exp: 1_700_000_100)
        let clocked = MultiIssuerVerifier(
            store: store, issuers: [IssuerConfiguration(issuer: a)], fallback: nil, clock: FixedClock(1_700_000_000),
            cache: VerifiedTokenCache())
        XCTAssertEqual(outcome(clocked, short).0, .miss)
        XCTAssertEqual(outcome(clocked, short).0, .hit)
    }

    func testPinnedRoutesReadThePublicationTheyWereMadeWith() throws {
        let store = KeyStore()
        store.publish(try JWKSet(json: StoreKit.jwks(["a1"])), forIssuer: a)
        let v = MultiIssuerVerifier(
            store: store, issuers: [IssuerConfiguration(issuer: a)], fallback: nil, pinned: true)
        XCTAssertNil(v.check(StoreKit.token(kid: "a1", iss: a)))
        store.publish(try JWKSet(json: StoreKit.jwks(["a2"])), forIssuer: a)
        XCTAssertNil(v.check(StoreKit.token(kid: "a1", iss: a)), "pinned: its owner makes a new one per generation")
        XCTAssertEqual(v.check(StoreKit.token(kid: "a2", iss: a))?.code, .unknownKid)
        let b = "https://b.example"
        let w = MultiIssuerVerifier(
            store: store, issuers: [IssuerConfiguration(issuer: b)], fallback: nil, pinned: true)
        XCTAssertEqual(w.check(StoreKit.token(kid: "b1", iss: b))?.code, .keysUnavailable)
        store.publish(try JWKSet(json: StoreKit.jwks(["b1"])), forIssuer: b)
        XCTAssertNil(w.check(StoreKit.token(kid: "b1", iss: b)), "no entry when made: read from the store")
    }
}
