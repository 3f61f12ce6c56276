import XCTest

@_spi(Internals) @testable import JWTKernel

/// The shared pieces of the provider claim types (lenient booleans, `Audience`, `RealUserStatus`,
/// `StandardClaims`) on edge cases, and LINE, which has no real token in the corpus.
final class ProviderClaimsDecodingTests: XCTestCase {
    func value(_ json: String) throws -> JSONValue { try JSONValue.parse(Array(json.utf8)) }

    struct Flag: Decodable {
        var flag: Bool?
        enum CodingKeys: String, CodingKey { case flag }
        init(from decoder: any Decoder) throws {
            flag = try decoder.container(keyedBy: CodingKeys.self).decodeLenientBoolIfPresent(forKey: .flag)
        }
    }

    struct RequiredFlag: Decodable {
        var flag: Bool
        enum CodingKeys: String, CodingKey { case flag }
        init(from decoder: any Decoder) throws {
            flag = try decoder.container(keyedBy: CodingKeys.self).decodeLenientBool(forKey: .flag)
        }
    }

    func testLenientBoolAcceptsBooleansAndTheirTwoStrings() throws {
        let cases: [(String, Bool?)] = [
            (#"{"flag":true}"#, true), (#"{"flag":false}"#, false), (#"{"flag":"true"}"#, true),
            (#"{"flag":"false"}"#, false), (#"{"flag":null}"#, nil), ("{}", nil),
        ]
        for (json, expected) in cases {
            XCTAssertEqual(try JSONValueDecoder().decode(Flag.self, from: value(json)).flag, expected, json)
        }
        XCTAssertEqual(try JSONValueDecoder().decode(RequiredFlag.self, from: value(#"{"flag":"true"}"#)).flag, true)
        XCTAssertThrowsError(try JSONValueDecoder().decode(RequiredFlag.self, from: value("{}"))) {
            guard case DecodingError.keyNotFound(let key, _) = $0 else { return XCTFail("\($0)") }
            XCTAssertEqual(key.stringValue, "flag")
        }
    }

    func testLenientBoolRefusesEverythingElse() throws {
        for json in [#"{"flag":"TRUE"}"#, #"{"flag":"True"}"#, #"{"flag":"1"}"#, #"{"flag":"yes"}"#, #"{"flag":""}"#] {
            XCTAssertThrowsError(try JSONValueDecoder().decode(Flag.self, from: value(json)), json) { error in
                guard case DecodingError.dataCorrupted(let context) = error else { return XCTFail("\(json): \(error)") }
                XCTAssertEqual(context.codingPath.map(\.stringValue), ["flag"])
                XCTAssertTrue(context.debugDescription.contains("another string"), context.debugDescription)
            }
        }
        for (json, found) in [
            (#"{"flag":1}"#, "a number"), (#"{"flag":0}"#, "a number"), (#"{"flag":[true]}"#, "an array"),
            (#"{"flag":{"v":true}}"#, "an object"),
        ] {
            XCTAssertThrowsError(try JSONValueDecoder().decode(Flag.self, from: value(json)), json) { error in
                guard case DecodingError.typeMismatch(let type, let context) = error else {
                    return XCTFail("\(json): \(error)")
                }
                XCTAssertTrue(type == Bool.self)
                XCTAssertEqual(context.codingPath.map(\.stringValue), ["flag"])
                XCTAssertTrue(context.debugDescription.hasSuffix("found \(found)."), context.debugDescription)
            }
        }
        XCTAssertThrowsError(try JSONValueDecoder().decode(RequiredFlag.self, from: value(#"{"flag":null}"#))) {
            guard case DecodingError.typeMismatch = $0 else { return XCTFail("\($0)") }
        }
    }

    func testRealUserStatusKeepsUnknownValues() throws {
        struct S: Decodable { var status: RealUserStatus }
        let expected: [(String, RealUserStatus)] = [
            ("0", .unsupported), ("1", .unknown), ("2", .likelyReal), ("3", .unrecognized(3)),
            ("-1", .unrecognized(-1)),
        ]
        for (number, status) in expected {
            let decoded = try JSONValueDecoder().decode(S.self, from: value(#"{"status":\#(number)}"#)).status
            XCTAssertEqual(decoded, status, number)
            XCTAssertEqual(decoded.rawValue, Int(number))
            XCTAssertEqual(RealUserStatus(rawValue: decoded.rawValue), decoded)
        }
        for json in [#"{"status":"2"}"#, #"{"status":2.5}"#, #"{"status":true}"#, #"{"status":null}"#] {
            XCTAssertThrowsError(try JSONValueDecoder().decode(S.self, from: value(json)), json) {
                guard case DecodingError.typeMismatch = $0 else { return XCTFail("\(json): \($0)") }
            }
        }
        XCTAssertThrowsError(try JSONValueDecoder().decode(S.self, from: value(#"{"status":99999999999999999999}"#))) {
            guard case DecodingError.dataCorrupted = $0 else { return XCTFail("\($0)") }
        }
    }

    func testAudienceIsAStringOrAnArrayOfStrings() throws {
        let base = #""iss":"https://issuer.test","sub":"u","exp":1700003600,"iat":1700000000"#
        let one = try JSONValueDecoder().decode(StandardClaims.self, from: value(#"{\#(base),"aud":"a"}"#))
        XCTAssertEqual(one.aud.values, ["a"])
        XCTAssertEqual(one.aud.description, "a")
        let many = try JSONValueDecoder().decode(StandardClaims.self, from: value(#"{\#(base),"aud":["a","b"]}"#))
        XCTAssertEqual(many.aud, Audience(["a", "b"]))
        XCTAssertTrue(many.aud.contains("b"))
        XCTAssertFalse(many.aud.contains("c"))
        XCTAssertEqual(
            try JSONValueDecoder().decode(StandardClaims.self, from: value(#"{\#(base),"aud":[]}"#)).aud.values, [])

        XCTAssertThrowsError(try JSONValueDecoder().decode(StandardClaims.self, from: value(#"{\#(base),"aud":7}"#))) {
            guard case DecodingError.typeMismatch(let type, let context) = $0 else { return XCTFail("\($0)") }
            XCTAssertTrue(type == Audience.self)
            XCTAssertEqual(context.codingPath.map(\.stringValue), ["aud"])
            XCTAssertTrue(context.debugDescription.contains("found a number"), context.debugDescription)
        }
        XCTAssertThrowsError(
            try JSONValueDecoder().decode(StandardClaims.self, from: value(#"{\#(base),"aud":["a",1]}"#))
        ) {
            guard case DecodingError.typeMismatch(_, let context) = $0 else { return XCTFail("\($0)") }
            XCTAssertEqual(context.codingPath.map(\.stringValue), ["aud", "1"])
        }
        // The required standard claims: a token without one is not a provider's.
        for missing in ["iss", "sub", "aud", "exp", "iat"] {
            var members = ["iss": #""i""#, "sub": #""s""#, "aud": #""a""#, "exp": "2", "iat": "1"]
            members[missing] = nil
            let json = "{" + members.map { #""\#($0.key)":\#($0.value)"# }.joined(separator: ",") + "}"
            XCTAssertThrowsError(try JSONValueDecoder().decode(StandardClaims.self, from: value(json)), missing) {
                guard case DecodingError.keyNotFound(let key, _) = $0 else { return XCTFail("\(missing): \($0)") }
                XCTAssertEqual(key.stringValue, missing)
            }
        }
    }

    /// LINE Login has no real token in the corpus: this one has the shape of the payload in LINE's documentation
    /// (https://developers.line.biz/en/docs/line-login/verify-id-token/, "Payload"; times chosen here), signed
    /// HS256 with a channel secret as LINE's web login does, and verified with the LINE preset.
    func testLINEDocumentedPayload() throws {
        let minter = HS256Minter(secret: Array("line-channel-secret-for-tests-0001".utf8), kid: "line")
        let token = minter.token(
            claims: #"{"iss":"https://access.line.me","sub":"U1234567890abcdef1234567890abcdef","aud":"1234567890","#
                + #""exp":1504169092,"iat":1504165492,"auth_time":1504165490,"nonce":"0987654asdf","amr":["pwd"],"#
                + #""name":"Taro Line","picture":"https://sample_line.me/aBcdefg123456","#
                + #""email":"taro.line@example.com"}"#)
        let verifier = JWTVerifier(
            keys: try minter.keySet, policy: .line(audiences: ["1234567890"], nonce: "0987654asdf"),
            clock: FixedClock(1_504_165_500))
        let line = try verifier.verify(token, as: LINEClaims.self)
        XCTAssertEqual(line.iss, "https://access.line.me")
        XCTAssertEqual(line.sub, "U1234567890abcdef1234567890abcdef")
        XCTAssertEqual(line.aud.values, ["1234567890"])
        XCTAssertEqual(line.exp, NumericDate(secondsSince1970: 1_504_169_092))
        XCTAssertEqual(line.authTime, NumericDate(secondsSince1970: 1_504_165_490))
        XCTAssertEqual(line.nonce, "0987654asdf")
        XCTAssertEqual(line.amr, ["pwd"])
        XCTAssertEqual(line.name, "Taro Line")
        XCTAssertEqual(line.picture, "https://sample_line.me/aBcdefg123456")
        XCTAssertEqual(line.email, "taro.line@example.com")

        // amr must be an array of strings.
        let bad = minter.token(
            claims: #"{"iss":"https://access.line.me","sub":"U1","aud":"1234567890","exp":1504169092,"#
                + #""iat":1504165492,"nonce":"0987654asdf","amr":"pwd"}"#)
        XCTAssertThrowsError(try verifier.verify(bad, as: LINEClaims.self)) {
            guard case DecodingError.typeMismatch(_, let context) = $0 else { return XCTFail("\($0)") }
            XCTAssertEqual(context.codingPath.map(\.stringValue), ["amr"])
        }
    }

    /// Facebook's permission-gated claims, in the shapes its SDKs read (no real token in the corpus has them).
    func testFacebookPermissionClaims() throws {
        let json =
            #"{"iss":"https://www.facebook.com","aud":"1","sub":"2","iat":1,"exp":2,"jti":"j","#
            + #""user_friends":["10","11"],"user_birthday":"01/31/1990","user_age_range":{"min":21},"#
            + #""user_hometown":{"id":"108","name":"Auckland, New Zealand"},"user_location":{"id":"109"},"#
            + #""user_gender":"female","user_link":"https://www.facebook.com/app_scoped_user_id/2/","#
            + #""middle_name":"Q"}"#
        let fb = try JSONValueDecoder().decode(FacebookClaims.self, from: value(json))
        XCTAssertEqual(fb.userFriends, ["10", "11"])
        XCTAssertEqual(fb.userBirthday, "01/31/1990")
        XCTAssertEqual(fb.userAgeRange?.min, 21)
        XCTAssertNil(fb.userAgeRange?.max)
        XCTAssertEqual(fb.userHometown?.name, "Auckland, New Zealand")
        XCTAssertEqual(fb.userHometown?.id, "108")
        XCTAssertEqual(fb.userLocation?.id, "109")
        XCTAssertNil(fb.userLocation?.name)
        XCTAssertEqual(fb.userGender, "female")
        XCTAssertEqual(fb.userLink, "https://www.facebook.com/app_scoped_user_id/2/")
        XCTAssertEqual(fb.middleName, "Q")
        XCTAssertEqual(fb.jti, "j")
    }
}
