import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

/// Claims policy semantics, at their exact boundaries. Tokens are HS256,
/// minted here over exactly the JSON text each test gives.
final class ClaimsPolicyTests: XCTestCase {
    let now: Int64 = 1_700_000_000
    let secret = [UInt8](repeating: 0x5A, count: 32)
    let defaultHeader = #"{"alg":"HS256","kid":"k"}"#

    lazy var keys = JWKSet(keys: [try! VerificationKey(hmacSecret: secret, kid: "k")])

    func token(_ claims: String, header: String? = nil) -> String {
        AttackSigner.token(header: header ?? defaultHeader, claims: claims, key: secret)
    }

    /// nil when the token verifies.
    func outcome(
        _ claims: String, header: String? = nil, _ policy: ClaimsPolicy, at time: Int64? = nil
    ) -> JWTErrorCode? {
        let verifier = JWTVerifier(keys: keys, policy: policy, clock: FixedClock(time ?? now))
        do { _ = try verifier.verify(token(claims, header: header)); return nil } catch { return error.code }
    }

    func assertValid(
        _ claims: String, header: String? = nil, _ policy: ClaimsPolicy, at time: Int64? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let got = outcome(claims, header: header, policy, at: time)
        XCTAssertNil(got, "expected valid: \(claims) -> \(got.map(\.name) ?? "")", file: file, line: line)
    }

    func assertRejected(
        _ expected: JWTErrorCode, _ claims: String, header: String? = nil, _ policy: ClaimsPolicy,
        at time: Int64? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(outcome(claims, header: header, policy, at: time), expected, claims, file: file, line: line)
    }

    func policy(
        leeway: Int64 = 0, requireExpiration: Bool = true, rejectIssuedInFuture: Bool = true, maxAge: Int64? = nil,
        issuers: [String] = [], audiences: [String] = [], requiredClaims: [String] = [],
        expectedType: String? = nil, expectedNonce: String? = nil
    ) -> ClaimsPolicy {
        ClaimsPolicy(
            issuers: issuers, audiences: audiences, leeway: leeway, requireExpiration: requireExpiration,
            rejectIssuedInFuture: rejectIssuedInFuture, maxAge: maxAge, requiredClaims: requiredClaims,
            expectedType: expectedType, expectedNonce: expectedNonce)
    }

    var exp: String { "\"exp\":\(now + 3600)" }

    // MARK: Defaults

    func testDefaults() {
        let p = ClaimsPolicy()
        XCTAssertEqual(p.leeway, 60)
        XCTAssertTrue(p.requireExpiration)
        XCTAssertTrue(p.rejectIssuedInFuture)
        XCTAssertNil(p.maxAge)
        XCTAssertEqual(p.issuers, [])
        XCTAssertEqual(p.audiences, [])
        XCTAssertEqual(p.requiredClaims, [])
        XCTAssertNil(p.expectedType)
        XCTAssertNil(p.expectedNonce)
        XCTAssertEqual(p.algorithms, .all)
        assertRejected(.missingClaim, "{}", p)
        assertValid("{\(exp)}", p)
        // iat is compared with the clock by default (60 s leeway).
        assertValid("{\(exp),\"iat\":\(now + 60)}", p)
        assertRejected(.issuedInFuture, "{\(exp),\"iat\":\(now + 61)}", p)
    }

    // MARK: exp

    func testExpBoundaryWithoutLeeway() {
        let p = policy(leeway: 0)
        assertRejected(.expired, "{\"exp\":\(now)}", p)  // exp == now: expired (RFC 7519 4.1.4 "on or after")
        assertValid("{\"exp\":\(now + 1)}", p)
        assertRejected(.expired, "{\"exp\":\(now - 1)}", p)
        // A fraction rounds toward refusal: `now` is any instant of its second (NumericDateFractionTests).
        assertRejected(.expired, "{\"exp\":\(now).5}", p)
        assertValid("{\"exp\":\(now + 1).5}", p)
        assertRejected(.expired, "{\"exp\":\(now - 1).5}", p)
        assertValid("{\"exp\":\(now + 3600)}", p, at: now + 3599)
        assertRejected(.expired, "{\"exp\":\(now + 3600)}", p, at: now + 3600)
    }

    func testExpBoundaryWithLeeway() {
        let p = policy(leeway: 30)
        assertValid("{\"exp\":\(now - 29)}", p)
        assertRejected(.expired, "{\"exp\":\(now - 30)}", p)  // now == exp + leeway: expired
        assertRejected(.expired, "{\"exp\":\(now - 31)}", p)
        assertValid("{\"exp\":\(now)}", p)
    }

    func testNegativeLeewayMeansNone() {
        let p = policy(leeway: -100)
        assertValid("{\"exp\":\(now + 1)}", p)
        assertRejected(.expired, "{\"exp\":\(now)}", p)
        assertValid("{\(exp),\"nbf\":\(now)}", p)
    }

    func testExpOptionalWhenNotRequired() {
        assertValid("{}", policy(requireExpiration: false))
        assertRejected(.missingClaim, "{}", policy(requireExpiration: true))
        // Present but expired is still expired when not required.
        assertRejected(.expired, "{\"exp\":\(now - 100)}", policy(requireExpiration: false))
        // Present with the wrong type is still an error when not required.
        assertRejected(.badClaimType, "{\"exp\":\"\(now + 100)\"}", policy(requireExpiration: false))
    }

    func testExpNumberForms() {
        let p = policy(leeway: 0)
        assertValid("{\"exp\":1.7000036e9}", p)
        assertValid("{\"exp\":17000036E5}", p, at: now)
        assertValid("{\"exp\":1700000000000000000}", p, at: now)
        assertRejected(.expired, "{\"exp\":-0}", p)
        assertRejected(.expired, "{\"exp\":0.0}", p)
        // Out of Double range: infinity is not a NumericDate (and +1e400 would never expire).
        assertRejected(.badClaimType, "{\"exp\":-1e400}", p)
        assertRejected(.badClaimType, "{\"exp\":1e400}", p)
        for bad in ["\"1700003600\"", "null", "true", "[1700003600]", "{}"] {
            assertRejected(.badClaimType, "{\"exp\":\(bad)}", p)
        }
    }

    /// A host application that sets a comma-decimal locale must not turn
    /// `"nbf":1.8e9` into 1 (token accepted years early) or `"exp":1.7000036e9` into 1.
    func testTimeClaimsDoNotDependOnTheLocale() throws {
        try JSONTestKit.withCommaDecimalLocale {
            assertRejected(.notYetValid, "{\(exp),\"nbf\":1.8e9}", policy())
            assertValid("{\"exp\":1.7000036e9}", policy())
            assertRejected(.expired, "{\(exp),\"iat\":1.6e9}", policy(maxAge: 3600))
        }
    }

    // MARK: nbf

    func testNbfBoundaryWithoutLeeway() {
        let p = policy(leeway: 0)
        assertValid("{\(exp),\"nbf\":\(now)}", p)  // nbf == now: valid from that second on
        assertRejected(.notYetValid, "{\(exp),\"nbf\":\(now + 1)}", p)
        assertValid("{\(exp),\"nbf\":\(now - 1)}", p)
        assertRejected(.notYetValid, "{\(exp),\"nbf\":\(now).5}", p)
    }

    func testNbfBoundaryWithLeeway() {
        let p = policy(leeway: 30)
        assertValid("{\(exp),\"nbf\":\(now + 30)}", p)
        assertRejected(.notYetValid, "{\(exp),\"nbf\":\(now + 31)}", p)
    }

    func testNbfType() {
        for bad in ["\"\(now)\"", "false", "null", "[]"] {
            assertRejected(.badClaimType, "{\(exp),\"nbf\":\(bad)}", policy())
        }
    }

    // MARK: iat

    func testIatInFutureIsAcceptedWhenTheCheckIsTurnedOff() {
        assertValid("{\(exp),\"iat\":\(now + 1000)}", policy(leeway: 0, rejectIssuedInFuture: false))
        assertRejected(.issuedInFuture, "{\(exp),\"iat\":\(now + 1000)}", policy(leeway: 0))
    }

    func testIatInFutureBoundary() {
        let p = policy(leeway: 0, rejectIssuedInFuture: true)
        assertValid("{\(exp),\"iat\":\(now)}", p)
        assertRejected(.issuedInFuture, "{\(exp),\"iat\":\(now + 1)}", p)
        let q = policy(leeway: 10, rejectIssuedInFuture: true)
        assertValid("{\(exp),\"iat\":\(now + 10)}", q)
        assertRejected(.issuedInFuture, "{\(exp),\"iat\":\(now + 11)}", q)
        assertValid("{\(exp)}", q, at: now)  // no iat: nothing to check
    }

    func testIatType() {
        for bad in ["\"\(now)\"", "true", "null", "{}"] {
            assertRejected(.badClaimType, "{\(exp),\"iat\":\(bad)}", policy())
        }
    }

    // MARK: maxAge

    func testMaxAgeBoundary() {
        let p = policy(leeway: 0, maxAge: 300)
        assertValid("{\(exp),\"iat\":\(now - 300)}", p)
        assertRejected(.expired, "{\(exp),\"iat\":\(now - 301)}", p)
        assertValid("{\(exp),\"iat\":\(now)}", p)
        assertRejected(.missingClaim, "{\(exp)}", p)
        let q = policy(leeway: 10, maxAge: 300)
        assertValid("{\(exp),\"iat\":\(now - 310)}", q)
        assertRejected(.expired, "{\(exp),\"iat\":\(now - 311)}", q)
    }

    func testMaxAgeZero() {
        let p = policy(leeway: 0, maxAge: 0)
        assertValid("{\(exp),\"iat\":\(now)}", p)
        assertRejected(.expired, "{\(exp),\"iat\":\(now - 1)}", p)
    }

    // MARK: requiredClaims

    func testRequiredClaims() {
        let p = policy(requiredClaims: ["sub", "jti"])
        assertValid("{\(exp),\"sub\":\"u\",\"jti\":\"j\"}", p)
        assertRejected(.missingClaim, "{\(exp),\"sub\":\"u\"}", p)
        assertRejected(.missingClaim, "{\(exp),\"jti\":\"j\"}", p)
        assertRejected(.missingClaim, "{\(exp),\"Sub\":\"u\",\"jti\":\"j\"}", p)
        assertValid("{\(exp),\"s\\u0075b\":\"u\",\"j\\u0074i\":\"j\"}", p)  // names compared decoded
        assertRejected(.missingClaim, "{\(exp),\"x\":{\"sub\":\"u\",\"jti\":\"j\"}}", p)  // nested does not count
    }

    func testRequiredClaimWithAnyValue() {
        let p = policy(requiredClaims: ["tenant", "roles", "flag", "nothing"])
        assertValid("{\(exp),\"tenant\":\"t\",\"roles\":[],\"flag\":false,\"nothing\":null}", p)
    }

    func testRequiredRegisteredAndLongNames() {
        let long = String(repeating: "claim", count: 20)
        let p = policy(requiredClaims: ["exp", "iat", "nbf", long, "é"])
        assertValid("{\(exp),\"iat\":\(now),\"nbf\":\(now),\"\(long)\":1,\"\\u00e9\":2}", p)
        assertRejected(.missingClaim, "{\(exp),\"iat\":\(now),\"nbf\":\(now),\"\(long)\":1}", p)
    }

    func testSixtyFourRequiredClaims() {
        let names = (0..<64).map { "c\($0)" }
        let p = policy(requiredClaims: names)
        let all = names.map { "\"\($0)\":1" }.joined(separator: ",")
        assertValid("{\(exp),\(all)}", p)
        for missing in [0, 31, 32, 63] {
            let some = names.enumerated().filter { $0.offset != missing }.map { "\"\($0.element)\":1" }.joined(
                separator: ",")
            assertRejected(.missingClaim, "{\(exp),\(some)}", p)
        }
    }

    // MARK: aud

    func testAudienceStringOrArray() {
        let p = policy(audiences: ["api"])
        assertValid("{\(exp),\"aud\":\"api\"}", p)
        assertValid("{\(exp),\"aud\":[\"api\"]}", p)
        assertValid("{\(exp),\"aud\":[\"other\",\"api\"]}", p)
        assertValid("{\(exp),\"aud\":[\"api\",\"api\"]}", p)
        assertRejected(.badAudience, "{\(exp),\"aud\":\"other\"}", p)
        assertRejected(.badAudience, "{\(exp),\"aud\":[\"other\"]}", p)
        assertRejected(.badAudience, "{\(exp),\"aud\":[]}", p)
        assertRejected(.badAudience, "{\(exp),\"aud\":\"API\"}", p)
        assertRejected(.badAudience, "{\(exp),\"aud\":\"api \"}", p)
        assertRejected(.badAudience, "{\(exp),\"aud\":\"ap\"}", p)
        assertRejected(.badAudience, "{\(exp),\"aud\":\"\"}", p)
        assertRejected(.missingClaim, "{\(exp)}", p)
        assertValid("{\(exp),\"aud\":\"\\u0061pi\"}", p)
        assertValid("{\(exp),\"aud\":[\"x\",\"\\u0061pi\"]}", p)
    }

    func testSeveralAcceptedAudiences() {
        let p = policy(audiences: ["a", "b"])
        assertValid("{\(exp),\"aud\":\"b\"}", p)
        assertValid("{\(exp),\"aud\":[\"c\",\"b\"]}", p)
        assertRejected(.badAudience, "{\(exp),\"aud\":[\"c\",\"d\"]}", p)
    }

    func testAudienceNotCheckedWithoutPolicyButStillTyped() {
        let p = policy()
        assertValid("{\(exp),\"aud\":\"anything\"}", p)
        assertValid("{\(exp)}", p)
        assertRejected(.badClaimType, "{\(exp),\"aud\":1}", p)
        assertRejected(.badClaimType, "{\(exp),\"aud\":[\"a\",1]}", p)
        assertRejected(.badClaimType, "{\(exp),\"aud\":[[\"a\"]]}", p)
        assertRejected(.badClaimType, "{\(exp),\"aud\":null}", p)
        // A non-string element is refused even after a matching one.
        assertRejected(.badClaimType, "{\(exp),\"aud\":[\"api\",{}]}", policy(audiences: ["api"]))
    }

    // MARK: iss

    func testIssuers() {
        let p = policy(issuers: ["https://a.example", "https://b.example"])
        assertValid("{\(exp),\"iss\":\"https://a.example\"}", p)
        assertValid("{\(exp),\"iss\":\"https://b.example\"}", p)
        assertValid("{\(exp),\"iss\":\"https:\\/\\/b.example\"}", p)
        assertRejected(.badIssuer, "{\(exp),\"iss\":\"https://c.example\"}", p)
        assertRejected(.badIssuer, "{\(exp),\"iss\":\"https://a.example/\"}", p)
        assertRejected(.badIssuer, "{\(exp),\"iss\":\"HTTPS://A.EXAMPLE\"}", p)
        assertRejected(.badIssuer, "{\(exp),\"iss\":\"https://a.example\\u0000\"}", p)
        assertRejected(.missingClaim, "{\(exp)}", p)
        assertRejected(.badClaimType, "{\(exp),\"iss\":[\"https://a.example\"]}", p)
        assertValid("{\(exp),\"iss\":\"whoever\"}", policy(), at: now)
    }

    // MARK: typ

    func testExpectedTypeIsAMediaTypeComparison() {
        func header(_ typ: String) -> String { "{\"alg\":\"HS256\",\"kid\":\"k\",\"typ\":\"\(typ)\"}" }
        let claims = "{\(exp)}"
        for (expected, typ) in [
            ("application/JWT", "jwt"), ("application/JWT", "JWT"), ("jwt", "application/JWT"),
            ("JWT", "application/jwt"), ("JWT", "Application/JWT"), ("jwt", "APPLICATION/JWT"),
            ("at+jwt", "application/AT+JWT"), ("application/at+jwt", "at+JWT"), ("JWT", "JWT"),
            ("dpop+jwt", "dpop+jwt"), ("JWT", "application\\/jwt"),
        ] {
            assertValid(claims, header: header(typ), policy(expectedType: expected))
        }
        for (expected, typ) in [
            ("JWT", "JOSE"), ("JWT", "at+jwt"), ("at+jwt", "JWT"), ("JWT", "JWTX"), ("JWT", "JW"),
            ("JWT", "text/jwt"), ("JWT", "application/"), ("JWT", ""), ("JWT", " jwt"),
            ("JWT", "application/application/jwt"), ("JWT", "jwt\\u0000"),
        ] {
            assertRejected(.badTyp, claims, header: header(typ), policy(expectedType: expected))
        }
        assertRejected(.badTyp, claims, header: defaultHeader, policy(expectedType: "JWT"))
        assertRejected(.badTyp, claims, header: header(String(repeating: "x", count: 300)), policy(expectedType: "JWT"))
        assertValid(claims, header: header(String(repeating: "x", count: 300)), policy())
        assertRejected(
            .malformed, claims, header: "{\"alg\":\"HS256\",\"kid\":\"k\",\"typ\":1}", policy(expectedType: "JWT"))
    }

    // MARK: nonce

    func testExpectedNonce() {
        let p = policy(expectedNonce: "n-0S6")
        assertValid("{\(exp),\"nonce\":\"n-0S6\"}", p)
        assertValid("{\(exp),\"nonce\":\"n\\u002d0S6\"}", p)
        assertRejected(.badNonce, "{\(exp),\"nonce\":\"n-0s6\"}", p)
        assertRejected(.badNonce, "{\(exp),\"nonce\":\"n-0S\"}", p)
        assertRejected(.badNonce, "{\(exp),\"nonce\":\"n-0S66\"}", p)
        assertRejected(.badNonce, "{\(exp),\"nonce\":\"\"}", p)
        assertRejected(.missingClaim, "{\(exp)}", p)
        assertRejected(.badClaimType, "{\(exp),\"nonce\":1}", p)
        assertValid("{\(exp),\"nonce\":\"anything\"}", policy())
        assertValid("{\(exp),\"nonce\":\"\"}", policy(expectedNonce: ""))
    }

    // MARK: Order of checks

    func testTimeIsCheckedBeforeIdentity() {
        // Documented order: presence and types, then time, then identity claims.
        let p = policy(issuers: ["https://a.example"], audiences: ["api"])
        assertRejected(.expired, "{\"exp\":\(now - 100),\"iss\":\"https://evil\",\"aud\":\"x\"}", p)
        assertRejected(.badClaimType, "{\"exp\":\(now - 100),\"iss\":1}", p)
        assertRejected(.badIssuer, "{\(exp),\"iss\":\"https://evil\",\"aud\":\"x\"}", p)
    }

    // MARK: Verified results

    func testVerifiedAccessors() throws {
        let verifier = JWTVerifier(keys: keys, policy: policy(), clock: FixedClock(now))
        let claims =
            #"{"iss":"https:\/\/i","sub":"s\u00e9","aud":["a","b"],"exp":1700003600,"nbf":1699999000.5,"iat":1699999000,"#
            + #""jti":"j","nonce":"n","azp":"z","custom":{"k":[1,"v"]}}"#
        let result = try verifier.verify(token(claims))
        XCTAssertEqual(result.algorithm, .hs256)
        XCTAssertEqual(result.kid, "k")
        XCTAssertEqual(result.issuer, "https://i")
        XCTAssertEqual(result.subject, "sé")
        XCTAssertEqual(result.audiences, ["a", "b"])
        XCTAssertEqual(result.expiresAt, 1_700_003_600)
        XCTAssertEqual(result.notBefore, 1_699_999_000.5)
        XCTAssertEqual(result.issuedAt, 1_699_999_000)
        XCTAssertEqual(result.nonce, "n")
        XCTAssertEqual(result.authorizedParty, "z")
        XCTAssertEqual(result.claimsJSON, Array(claims.utf8), "the claims exactly as signed")
        XCTAssertEqual(result[claim: "custom"]?["k"], .array([.number("1"), .string("v")]))
        XCTAssertEqual(result.claims["jti"], .string("j"))

        let single = try verifier.verify(token("{\(exp),\"aud\":\"only\"}"))
        XCTAssertEqual(single.audiences, ["only"])
        XCTAssertNil(single.issuer)
        XCTAssertNil(single.notBefore)
        let none = try verifier.verify(token("{\(exp)}", header: #"{"alg":"HS256"}"#))
        XCTAssertNil(none.kid)
        XCTAssertEqual(none.audiences, [])
    }

    /// A verified token's claims tree must be the claims it was verified with.
    /// Nested duplicate member names pass the hot path (it checks the top level
    /// only), but `JSONValue.parse` refuses them, and `VerifiedJWT.claims`
    /// then silently reports an empty object: the token is valid, its claims vanish.
    func testVerifiedClaimsAreNeverSilentlyEmpty() {
        let verifier = JWTVerifier(keys: keys, policy: policy(), clock: FixedClock(now))
        let claims = "{\(exp),\"sub\":\"u\",\"ext\":{\"role\":\"user\",\"role\":\"admin\"}}"
        do {
            let result = try verifier.verify(token(claims))
            XCTAssertNotEqual(
                result.claims, .object([]),
                "verified claims with a nested duplicate are reported as {} (VerifiedJWT.claims swallows the parse error)"
            )
            XCTAssertEqual(result[claim: "sub"], .string("u"))
        } catch {
            XCTAssertEqual(error.code, .malformed, "refusing nested duplicates outright is also acceptable")
        }
    }
}
