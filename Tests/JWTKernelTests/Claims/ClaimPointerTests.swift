import XCTest

@_spi(Internals) @testable import JWTKernel

/// `VerifiedJWT.claim(at:)` and `header(at:)`: RFC 6901 pointers on a verified token.
final class ClaimPointerTests: XCTestCase {
    let secret = [UInt8](repeating: 0x5A, count: 32)
    let header = #"{"alg":"HS256","kid":"k","typ":"JWT","x-tenant":"t\u00e9"}"#
    let claims =
        #"{"sub":"user-1","exp":1700003600,"address":{"country":"NZ","geo":{"lat":-36.8}},"#
        + #""https://example.com/roles":["admin","ops"],"a.b":"dot","a~b":true,"roles":["r\u00f6le",null],"#
        + #""deep":{"list":[{"name":"first"},{"name":"sec\/ond"}]}}"#

    func verified() throws -> VerifiedJWT {
        let keys = JWKSet(keys: [try VerificationKey(hmacSecret: secret, kid: "k")])
        let verifier = JWTVerifier(keys: keys, policy: ClaimsPolicy(), clock: FixedClock(1_700_000_000))
        return try verifier.verify(AttackSigner.token(header: header, claims: claims, key: secret))
    }

    func testClaimsByPointer() throws {
        let jwt = try verified()
        XCTAssertEqual(jwt.claim(at: "/sub"), .string("user-1"))
        XCTAssertEqual(jwt.claim(at: "/exp"), .number("1700003600"))
        XCTAssertEqual(jwt.claim(at: "/address/country"), .string("NZ"))
        XCTAssertEqual(jwt.claim(at: "/address/geo/lat"), .number("-36.8"))
        XCTAssertEqual(jwt.claim(at: "/address"), jwt.claims["address"])
        XCTAssertEqual(jwt.claim(at: "/https:~1~1example.com~1roles"), .array([.string("admin"), .string("ops")]))
        XCTAssertEqual(jwt.claim(at: "/https:~1~1example.com~1roles/1"), .string("ops"))
        XCTAssertEqual(jwt.claim(at: "/a.b"), .string("dot"))
        XCTAssertEqual(jwt.claim(at: "/a~0b"), .bool(true))
        XCTAssertEqual(jwt.claim(at: "/roles/0"), .string("röle"))
        XCTAssertEqual(jwt.claim(at: "/roles/1"), .null)
        XCTAssertEqual(jwt.claim(at: "/deep/list/1/name"), .string("sec/ond"))
        XCTAssertEqual(jwt.claim(at: ""), jwt.claims)
    }

    func testAbsentAndInvalidPointersAreNil() throws {
        let jwt = try verified()
        for absent in [
            "/nope", "/address/nope", "/address.country", "/roles/2", "/roles/01", "/roles/-", "/sub/0",
            "/https://example.com/roles",
        ] {
            XCTAssertNil(jwt.claim(at: absent), absent)
        }
        for invalid in ["sub", "address/country", "/a~2b", "/a~"] { XCTAssertNil(jwt.claim(at: invalid), invalid) }
    }

    func testHeaderByPointer() throws {
        let jwt = try verified()
        XCTAssertEqual(jwt.header(at: "/kid"), .string("k"))
        XCTAssertEqual(jwt.header(at: "/typ"), .string("JWT"))
        XCTAssertEqual(jwt.header(at: "/x-tenant"), .string("té"))
        XCTAssertNil(jwt.header(at: "/crit"))
        XCTAssertNil(jwt.header(at: "/sub"))
        XCTAssertEqual(jwt.header(at: "")?["alg"], .string("HS256"))
    }
}
