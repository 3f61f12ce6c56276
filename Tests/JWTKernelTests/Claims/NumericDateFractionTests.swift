import XCTest

@_spi(Internals) @testable import JWTKernel

/// NumericDate with a fraction (RFC 7519 §2): read, and compared against whole-second `now` with every
/// fraction rounded toward refusal, exactly from the digits (never through a Double that rounds up);
/// full verification and cache hits alike.
final class NumericDateFractionTests: XCTestCase {
    let minter = HS256Minter(secret: Array("numeric-date-fraction-secret-32b".utf8), kid: "k")

    func verifier(leeway: Int64 = 0, maxAge: Int64? = nil, cache: VerifiedTokenCache? = nil) throws -> JWTVerifier {
        JWTVerifier(
            keys: try minter.keySet,
            policy: ClaimsPolicy(leeway: leeway, requireExpiration: false, rejectIssuedInFuture: true, maxAge: maxAge),
            clock: FixedClock(0), cache: cache)
    }

    /// The verdict of a token with `claims` (JSON members, written as given) at `now`: nil when valid.
    func code(_ claims: String, at now: Int64, _ v: JWTVerifier? = nil) throws -> JWTErrorCode? {
        try (v ?? verifier()).check(minter.token(claims: "{\(claims)}"), at: now)?.code
    }

    func testExpWithAFractionCountsFromItsFloor() throws {
        XCTAssertNil(try code(#""exp":100.5"#, at: 99))
        XCTAssertEqual(try code(#""exp":100.5"#, at: 100), .expired, "now 100 may be 100.7: past 100.5")
        XCTAssertEqual(try code(#""exp":100.5"#, at: 101), .expired)
        // 100.99999999999999999 is 101.0 as a Double; its floor is 100.
        XCTAssertEqual(try code(#""exp":100.99999999999999999"#, at: 100), .expired)
        XCTAssertEqual(try code(#""exp":1.005e2"#, at: 100), .expired)
        XCTAssertNil(try code(#""exp":1.01e2"#, at: 100), "1.01e2 is the integer 101")
        XCTAssertNil(try code(#""exp":4133862000.875"#, at: 4_133_861_999))
        XCTAssertEqual(try code(#""exp":4133862000.875"#, at: 4_133_862_000), .expired)
    }

    func testNbfAndIatWithAFractionCountFromTheirCeiling() throws {
        XCTAssertEqual(try code(#""nbf":100.5"#, at: 100), .notYetValid)
        XCTAssertNil(try code(#""nbf":100.5"#, at: 101))
        // 100.000000000000000001 is 100.0 as a Double; it is still after 100.
        XCTAssertEqual(try code(#""nbf":100.000000000000000001"#, at: 100), .notYetValid)
        XCTAssertNil(try code(#""nbf":-0.5"#, at: 0))
        XCTAssertEqual(try code(#""iat":100.5"#, at: 100), .issuedInFuture)
        XCTAssertNil(try code(#""iat":100.5"#, at: 101))
    }

    func testTheLeewayAppliesAsToIntegers() throws {
        let v = try verifier(leeway: 10)
        XCTAssertNil(try code(#""exp":100.5"#, at: 109, v))
        XCTAssertEqual(try code(#""exp":100.5"#, at: 110, v), .expired)
        XCTAssertEqual(try code(#""nbf":100.5"#, at: 90, v), .notYetValid)
        XCTAssertNil(try code(#""nbf":100.5"#, at: 91, v))
        XCTAssertEqual(try code(#""iat":100.5"#, at: 90, v), .issuedInFuture)
        // Integers: exactly as before.
        XCTAssertNil(try code(#""exp":100"#, at: 109, v))
        XCTAssertEqual(try code(#""exp":100"#, at: 110, v), .expired)
        XCTAssertNil(try code(#""nbf":100"#, at: 90, v))
    }

    func testMaximumAgeCountsFromTheFloorOfIat() throws {
        let v = try verifier(maxAge: 10)
        XCTAssertNil(try code(#""iat":100.5"#, at: 110, v))
        XCTAssertEqual(try code(#""iat":100.5"#, at: 111, v), .expired)
        XCTAssertNil(try code(#""iat":100"#, at: 110, v))
        XCTAssertEqual(try code(#""iat":100"#, at: 111, v), .expired)
    }

    func testACachedVerificationIsRecheckedTheSameWay() throws {
        let cache = VerifiedTokenCache()
        let v = try verifier(cache: cache)
        let token = minter.token(claims: #"{"exp":100.5}"#)
        XCTAssertNil(v.check(token, at: 99))
        XCTAssertEqual(cache.count, 1)
        XCTAssertEqual(v.check(token, at: 100)?.code, .expired, "the hit re-checks exp from its floor")
    }

    func testTheValueIsReadAsWritten() throws {
        let jwt = try verifier().verify(minter.token(claims: #"{"exp":4133862000.875,"nbf":1.5e0}"#), at: 2)
        XCTAssertEqual(jwt.expiresAt, 4_133_862_000.875)
        XCTAssertEqual(jwt.notBefore, 1.5)
    }

    func testWholeSecondsAreExactFromTheDigits() {
        let cases: [(String, Int64, Bool)] = [
            ("0", 0, false), ("-0.0", 0, false), ("100", 100, false), ("100.5", 100, true), ("-100.5", -101, true),
            ("-0.5", -1, true), ("1e3", 1000, false), ("12.5e1", 125, false), ("12.55e1", 125, true),
            ("1E-5", 0, true), ("100.99999999999999999", 100, true), ("4133862000.875", 4_133_862_000, true),
            ("1e30", .max, false), ("-1e30", .min, false), ("9223372036854775807", .max, false),
            ("9223372036854775808", .max, false), ("-9223372036854775808.5", .min, true),
            ("1e99999999999", .max, false),
        ]
        for (text, floor, fractional) in cases {
            let bytes = Array(text.utf8)
            let got = bytes.withUnsafeBufferPointer { b in
                JSONDecimal(b.baseAddress!, start: 0, end: b.count).floorAndFraction(b.baseAddress!)
            }
            XCTAssertEqual(got.floor, floor, text)
            XCTAssertEqual(got.fractional, fractional, text)
        }
    }
}
