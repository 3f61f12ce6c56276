import XCTest

@testable import JWTKernel

/// The one HTTP table (status, RFC 6750 error) every front end answers from, the challenge's quoting, and
/// the reading of `Authorization: Bearer`.
final class HTTPAnswerTests: XCTestCase {
    func testStatusAndBearerErrorOfEveryCode() {
        for code in JWTErrorCode.allCases {
            switch code {
            case .claimRequirementFailed:
                XCTAssertEqual(code.httpStatus, 403)
                XCTAssertEqual(code.bearerError, "insufficient_scope")
            case .keysUnavailable:
                XCTAssertEqual(code.httpStatus, 503)
                XCTAssertNil(code.bearerError, "a 503 carries no challenge")
            default:
                XCTAssertEqual(code.httpStatus, 401, code.name)
                XCTAssertEqual(code.bearerError, "invalid_token", code.name)
            }
        }
    }

    func testChallenges() {
        XCTAssertEqual(BearerChallenge.header(realm: "api"), #"Bearer realm="api""#)
        XCTAssertEqual(
            BearerChallenge.header(realm: "api", refusing: JWTError(.expired, "x")),
            #"Bearer realm="api", error="invalid_token""#)
        XCTAssertNil(BearerChallenge.header(realm: "api", refusing: JWTError(.keysUnavailable, "x")))
        XCTAssertEqual(
            BearerChallenge.header(realm: "api", error: BearerChallenge.insufficientScope, scope: "read write"),
            #"Bearer realm="api", error="insufficient_scope", scope="read write""#)
        XCTAssertEqual(
            BearerChallenge.header(realm: "a \"b\" \\c\r\nX-Injected: 1"), #"Bearer realm="a \"b\" \\cX-Injected: 1""#,
            "quotes and backslashes escaped, CR LF dropped: a realm cannot split the header")
    }

    func testBearerToken() {
        XCTAssertEqual(AuthorizationHeader.bearerToken(in: "Bearer abc.def.ghi"), "abc.def.ghi")
        XCTAssertEqual(AuthorizationHeader.bearerToken(in: "bearer abc"), "abc", "the scheme is case-insensitive")
        XCTAssertEqual(AuthorizationHeader.bearerToken(in: "BEARER \t abc  "), "abc")
        XCTAssertNil(AuthorizationHeader.bearerToken(in: "Bearer"))
        XCTAssertNil(AuthorizationHeader.bearerToken(in: "Bearer    "))
        XCTAssertNil(AuthorizationHeader.bearerToken(in: "Bearerabc"))
        XCTAssertNil(AuthorizationHeader.bearerToken(in: "Basic dXNlcjpwYXNz"))
        XCTAssertNil(AuthorizationHeader.bearerToken(in: ""))
        XCTAssertNil(AuthorizationHeader.bearerToken(in: "Bëarer abc"))
    }
}
