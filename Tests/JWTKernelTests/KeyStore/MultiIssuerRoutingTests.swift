import XCTest

@testable import JWTKernel

/// Routing at scale (the hashed index of exact issuers, templates after them) and the
/// one pass over the claims that serves both routing and each route's required claims.
final class MultiIssuerRoutingTests: XCTestCase {
    func testTwoThousandExactIssuersAndATemplateEachRouteToTheirOwnKeys() throws {
        let store = KeyStore()
        let n = 2000
        var configs = (0..<n).map { IssuerConfiguration(issuer: "https://t\($0).example") }
        configs.insert(IssuerConfiguration(issuer: "https://login.example/{tenantid}/v2"), at: 7)
        // A duplicate exact issuer: the first configuration keeps it.
        configs.append(IssuerConfiguration(issuer: "https://t5.example", policy: ClaimsPolicy(audiences: ["never"])))
        for i in 0..<n { store.publish(try JWKSet(json: StoreKit.jwks(["k\(i)"])), forIssuer: "https://t\(i).example") }
        store.publish(try JWKSet(json: StoreKit.jwks(["tk"])), forIssuer: "https://login.example/{tenantid}/v2")
        let v = MultiIssuerVerifier(store: store, issuers: configs)
        for i in stride(from: 0, to: n, by: 37) {
            XCTAssertNil(v.check(StoreKit.token(kid: "k\(i)", iss: "https://t\(i).example")), "t\(i)")
            // Another issuer's kid is unknown here.
            XCTAssertEqual(
                v.check(StoreKit.token(kid: "k\((i + 1) % n)", iss: "https://t\(i).example"))?.code, .unknownKid)
        }
        XCTAssertNil(v.check(StoreKit.token(kid: "k5", iss: "https://t5.example")))
        XCTAssertEqual(v.check(StoreKit.token(kid: "k1", iss: "https://t\(n).example"))?.code, .unknownIssuer)
        XCTAssertEqual(v.check(StoreKit.token(kid: "k1", iss: "https://t1.example/"))?.code, .unknownIssuer)
        // An escaped iss decodes to a configured one.
        let escaped = HS256Minter(secret: StoreKit.secret("k3"), kid: "k3").token(
            claims: #"{"iss":"https:\/\/t3.example","aud":"app","exp":4000000000}"#)
        XCTAssertNil(v.check(escaped))
        let tenant = HS256Minter(secret: StoreKit.secret("tk"), kid: "tk").token(
            claims: #"{"iss":"https://login.example/abc-1/v2","tid":"abc-1","exp":4000000000}"#)
        XCTAssertNil(v.check(tenant))
    }

    func testEachRoutesRequiredClaimsAreCheckedFromTheOneRead() throws {
        let a = "https://a.example", b = "https://b.example", c = "https://c.example"
        let store = KeyStore()
        for iss in [a, b, c] { store.publish(try JWKSet(json: StoreKit.jwks(["k"])), forIssuer: iss) }
        let v = MultiIssuerVerifier(
            store: store,
            issuers: [
                IssuerConfiguration(issuer: a, policy: ClaimsPolicy(requiredClaims: ["tenant", "scope"])),
                IssuerConfiguration(issuer: b, policy: ClaimsPolicy(requiredClaims: ["scope", "\u{e9}"])),
                IssuerConfiguration(issuer: c),
            ])
        func token(_ iss: String, _ extra: String) -> String {
            HS256Minter(secret: StoreKit.secret("k"), kid: "k").token(
                claims: #"{"iss":"\#(iss)","exp":4000000000\#(extra)}"#)
        }
        XCTAssertNil(v.check(token(a, #","tenant":1,"scope":"x""#)))
        XCTAssertEqual(v.check(token(a, #","scope":"x""#))?.code, .missingClaim)
        XCTAssertEqual(v.check(token(a, #","tenant":1,"\u00e9":2"#))?.code, .missingClaim)
        XCTAssertNil(v.check(token(b, #","scope":"x","\u00e9":2"#)))
        XCTAssertEqual(v.check(token(b, #","tenant":1,"scope":"x""#))?.code, .missingClaim)
        XCTAssertNil(v.check(token(c, "")))
    }

    func testMoreRequiredNamesThanOnePassTracksFallsBackToEachRoutesOwnRead() throws {
        // 70 routes, each requiring its own claim: 70 names in all, beyond the 64 one read tracks.
        let store = KeyStore()
        let configs = (0..<70).map {
            IssuerConfiguration(issuer: "https://r\($0).example", policy: ClaimsPolicy(requiredClaims: ["c\($0)"]))
        }
        for i in 0..<70 { store.publish(try JWKSet(json: StoreKit.jwks(["k"])), forIssuer: "https://r\(i).example") }
        let v = MultiIssuerVerifier(store: store, issuers: configs)
        func token(_ i: Int, _ claim: String) -> String {
            HS256Minter(secret: StoreKit.secret("k"), kid: "k").token(
                claims: #"{"iss":"https://r\#(i).example","exp":4000000000,"\#(claim)":true}"#)
        }
        for i in [0, 63, 64, 69] {
            XCTAssertNil(v.check(token(i, "c\(i)")), "r\(i)")
            XCTAssertEqual(v.check(token(i, "c\((i + 1) % 70)"))?.code, .missingClaim, "r\(i)")
        }
    }

    func testACachedVerificationIsServedAndDroppedWithItsKey() throws {
        let a = "https://a.example"
        let store = KeyStore()
        store.publish(try JWKSet(json: StoreKit.jwks(["k1"])), forIssuer: a)
        let cache = VerifiedTokenCache()
        let v = MultiIssuerVerifier(store: store, issuers: [IssuerConfiguration(issuer: a)], cache: cache)
        let t = StoreKit.token(kid: "k1", iss: a)
        XCTAssertNil(v.check(t))
        XCTAssertEqual(cache.count, 1)
        XCTAssertEqual(try v.verify(t).issuer, a)  // from the cache: same result
        XCTAssertEqual(cache.count, 1)
        store.publish(try JWKSet(json: StoreKit.jwks(["k2"])), forIssuer: a)
        XCTAssertEqual(v.check(t)?.code, .unknownKid)
        XCTAssertEqual(cache.count, 0, "the entry of a withdrawn key is dropped")
    }
}
