import XCTest

@_spi(Internals) @testable import JWTKernel

/// `verify(_:as:)` and `VerifiedJWT.decode(_:)`: claims decoded into the caller's `Decodable` types
/// by `JSONValueDecoder`, without Foundation in the core.
final class TypedClaimsTests: XCTestCase {
    let secret = [UInt8](repeating: 0x5A, count: 32)
    let issuer = "https://issuer.test"

    struct Address: Decodable, Equatable {
        var country: String
        var lines: [String]
    }

    struct Claims: Decodable, Equatable {
        var iss: String
        var sub: String
        var exp: NumericDate
        var iat: Int64
        var authTime: Double
        var emailVerified: Bool
        var nickname: String?
        var address: Address
        var roles: [String]
        var scores: [Int]
        var big: UInt64
        var extra: JSONValue

        enum CodingKeys: String, CodingKey {
            case iss, sub, exp, iat
            case authTime = "auth_time"
            case emailVerified = "email_verified"
            case nickname, address, roles, scores, big, extra
        }
    }

    let claims =
        #"{"iss":"https://issuer.test","sub":"user-1","exp":1700003600,"iat":1699999999,"#
        + #""auth_time":1699999998.25,"email_verified":true,"nickname":null,"#
        + #""address":{"country":"NZ","lines":["1 Queen St","Auckland"]},"roles":["admin","ops"],"#
        + #""scores":[1,-2,3],"big":18446744073709551615,"extra":{"a":[1,{"b":null}]}}"#

    func token(_ claims: String) -> String {
        AttackSigner.token(header: #"{"alg":"HS256","kid":"k","typ":"JWT"}"#, claims: claims, key: secret)
    }

    func verifier() throws -> JWTVerifier {
        let keys = JWKSet(keys: [try VerificationKey(hmacSecret: secret, kid: "k")])
        return JWTVerifier(keys: keys, policy: ClaimsPolicy(), clock: FixedClock(1_700_000_000))
    }

    func testDecodesNestedContainersAndExactNumbers() throws {
        let decoded = try verifier().verify(token(claims), as: Claims.self)
        XCTAssertEqual(decoded.iss, issuer)
        XCTAssertEqual(decoded.sub, "user-1")
        XCTAssertEqual(decoded.exp, NumericDate(secondsSince1970: 1_700_003_600))
        XCTAssertEqual(decoded.iat, 1_699_999_999)
        XCTAssertEqual(decoded.authTime, 1_699_999_998.25)
        XCTAssertTrue(decoded.emailVerified)
        XCTAssertNil(decoded.nickname)
        XCTAssertEqual(decoded.address, Address(country: "NZ", lines: ["1 Queen St", "Auckland"]))
        XCTAssertEqual(decoded.roles, ["admin", "ops"])
        XCTAssertEqual(decoded.scores, [1, -2, 3])
        XCTAssertEqual(decoded.big, UInt64.max)  // exact, though no Double holds it
        XCTAssertEqual(
            decoded.extra,
            .object([.init(name: "a", value: .array([.number("1"), .object([.init(name: "b", value: .null)])]))]))
    }

    func testMultiIssuerVerifierAndVerifiedJWT() throws {
        struct Minimal: Decodable { var sub: String; var exp: Int64 }
        let store = KeyStore()
        store.register(issuer: issuer)
        store.publish(JWKSet(keys: [try VerificationKey(hmacSecret: secret, kid: "k")]), forIssuer: issuer)
        let multi = MultiIssuerVerifier(
            store: store, issuers: [IssuerConfiguration(issuer: issuer)], clock: FixedClock(1_700_000_000))
        let minimal = try multi.verify(token(claims), as: Minimal.self)
        XCTAssertEqual(minimal.sub, "user-1")
        XCTAssertEqual(minimal.exp, 1_700_003_600)
        XCTAssertEqual(try multi.verify(token(claims)).decode(Minimal.self).sub, "user-1")
        // A refused token is a JWTError, before any decoding.
        XCTAssertThrowsError(
            try multi.verify(token(#"{"iss":"https://other.test","exp":1700003600}"#), as: Minimal.self)
        ) {
            XCTAssertEqual(($0 as? JWTError)?.code, .unknownIssuer)
        }
    }

    func testIntegerTypesRefuseFractionsExponentsAndOverflow() throws {
        struct I: Decodable { var n: Int64 }
        struct U: Decodable { var n: UInt8 }
        struct D: Decodable { var n: Double }
        let decoder = JSONValueDecoder()
        XCTAssertEqual(
            try decoder.decode(I.self, from: JSONValue.parse(Array(#"{"n":-9223372036854775808}"#.utf8))).n, .min)
        for text in [#"{"n":1.0}"#, #"{"n":1e3}"#, #"{"n":2.5}"#, #"{"n":"1"}"#] {
            XCTAssertThrowsError(try decoder.decode(I.self, from: JSONValue.parse(Array(text.utf8))), text) { error in
                guard case DecodingError.typeMismatch(let type, let context) = error else {
                    return XCTFail("\(text): \(error)")
                }
                XCTAssertTrue(type == Int64.self)
                XCTAssertEqual(context.codingPath.map(\.stringValue), ["n"])
            }
        }
        XCTAssertThrowsError(
            try decoder.decode(I.self, from: JSONValue.parse(Array(#"{"n":9223372036854775808}"#.utf8)))
        ) {
            guard case DecodingError.dataCorrupted = $0 else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try decoder.decode(U.self, from: JSONValue.parse(Array(#"{"n":256}"#.utf8))))
        XCTAssertEqual(try decoder.decode(D.self, from: JSONValue.parse(Array(#"{"n":1e3}"#.utf8))).n, 1000)
        XCTAssertEqual(try decoder.decode(D.self, from: JSONValue.parse(Array(#"{"n":0.1}"#.utf8))).n, 0.1)
    }

    func testMismatchesNameTheCodingPath() throws {
        struct Inner: Decodable { var flag: Bool }
        struct Outer: Decodable { var list: [Inner] }
        let value = try JSONValue.parse(Array(#"{"list":[{"flag":true},{"flag":"true"}]}"#.utf8))
        XCTAssertThrowsError(try JSONValueDecoder().decode(Outer.self, from: value)) { error in
            guard case DecodingError.typeMismatch(let type, let context) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(type == Bool.self)
            XCTAssertEqual(context.codingPath.map(\.stringValue), ["list", "1", "flag"])
            XCTAssertTrue(context.debugDescription.contains("found a string"), context.debugDescription)
        }
        struct Needs: Decodable { var email: String }
        XCTAssertThrowsError(try JSONValueDecoder().decode(Needs.self, from: value)) {
            guard case DecodingError.keyNotFound(let key, _) = $0 else { return XCTFail("\($0)") }
            XCTAssertEqual(key.stringValue, "email")
        }
        XCTAssertThrowsError(try JSONValueDecoder().decode([String].self, from: value)) {
            guard case DecodingError.typeMismatch = $0 else { return XCTFail("\($0)") }
        }
    }

    func testDictionariesEnumsAndSingleValues() throws {
        enum Status: String, Decodable { case active, disabled }
        struct S: Decodable { var status: Status; var attributes: [String: Int]; var pair: [Double] }
        let value = try JSONValue.parse(Array(#"{"status":"active","attributes":{"a":1,"b":2},"pair":[1,2.5]}"#.utf8))
        let s = try JSONValueDecoder().decode(S.self, from: value)
        XCTAssertEqual(s.status, .active)
        XCTAssertEqual(s.attributes, ["a": 1, "b": 2])
        XCTAssertEqual(s.pair, [1, 2.5])
        XCTAssertEqual(try JSONValueDecoder().decode(String.self, from: .string("x")), "x")
        XCTAssertThrowsError(try JSONValueDecoder().decode(NumericDate.self, from: .string("1700000000")))
    }
}
