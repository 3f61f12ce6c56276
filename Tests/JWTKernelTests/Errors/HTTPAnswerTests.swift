import Foundation
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
        XCTAssertNil(AuthorizationHeader.bearerToken(in: "BEARER \t abc  "), "1*SP after the scheme, no tab")
        XCTAssertNil(AuthorizationHeader.bearerToken(in: "Bearer"))
        XCTAssertNil(AuthorizationHeader.bearerToken(in: "Bearer    "))
        XCTAssertNil(AuthorizationHeader.bearerToken(in: "Bearerabc"))
        XCTAssertNil(AuthorizationHeader.bearerToken(in: "Basic dXNlcjpwYXNz"))
        XCTAssertNil(AuthorizationHeader.bearerToken(in: ""))
        XCTAssertNil(AuthorizationHeader.bearerToken(in: "Bëarer abc"))
    }

    /// Every byte inside a token against RFC 6750's b64token characters, written out here as the RFC lists them.
    func testEveryByteInsideAToken() {
        let allowed = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/".utf8))
        for byte in UInt8.min...UInt8.max {
            let value: [UInt8] = Array("Bearer a".utf8) + [byte] + Array("b".utf8)
            let range = value.withUnsafeBytes { AuthorizationHeader.bearerTokenRange(in: $0) }
            XCTAssertEqual(range != nil, allowed.contains(byte), "byte \(byte)")
            if allowed.contains(byte) { XCTAssertEqual(range, 7..<10) }
        }
    }

    /// The same at every position of a 40-byte token, so each byte is judged by the 16-byte vector blocks
    /// (positions 0-31) and by the byte loop after them (32-39), and by the two when it ends a token ("=" pads).
    func testEveryByteAtEveryPositionOfALongToken() {
        let allowed = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/".utf8))
        let prefix = Array("Bearer ".utf8)
        for byte in UInt8.min...UInt8.max {
            for position in 0..<40 {
                var token = [UInt8](repeating: 0x61, count: 40)
                token[position] = byte
                let range = (prefix + token).withUnsafeBytes { AuthorizationHeader.bearerTokenRange(in: $0) }
                // "=" is padding: it may only end a token (the last byte here); spaces and tabs end the value; a
                // space first is one more of the 1*SP after the scheme.
                let expected: Range<Int>?
                if allowed.contains(byte) || (byte == 0x3D && position == 39) {
                    expected = 7..<47
                } else if byte == 0x20 && position == 0 {
                    expected = 8..<47
                } else if (byte == 0x20 || byte == 0x09) && position == 39 {
                    expected = 7..<46
                } else {
                    expected = nil
                }
                XCTAssertEqual(range, expected, "byte \(byte) at \(position)")
            }
        }
    }

    /// The shared corpus (Fixtures/gateway/contract.json) that the C library, Python, the nginx module and the
    /// Lua handler answer too: the bearer grammar and the challenge per status.
    func testGatewayContractCorpus() throws {
        let doc = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Fixtures.data("gateway/contract.json")) as? [String: Any])
        let bearer = try XCTUnwrap(doc["bearer"] as? [[String: Any]])
        XCTAssertGreaterThan(bearer.count, 20)
        for c in bearer {
            let value = try XCTUnwrap(c["value"] as? String)
            let token = AuthorizationHeader.bearerToken(in: value).map(String.init)
            XCTAssertEqual(token, c["token"] as? String, "\(c["name"]!)")
        }
        let challenges = try XCTUnwrap(doc["challenge"] as? [[String: Any]])
        for c in challenges {
            let status = try XCTUnwrap(c["status"] as? String)
            let realm = try XCTUnwrap(c["realm"] as? String)
            let scope = c["scope"] as? String
            let header: String?
            if status == "no_token" {
                header = BearerChallenge.header(realm: realm)
            } else {
                let code = try XCTUnwrap(JWTErrorCode.allCases.first { $0.name == status }, status)
                header = code.bearerError.map {
                    BearerChallenge.header(
                        realm: realm, error: $0, scope: code == .claimRequirementFailed ? scope : nil)
                }
            }
            XCTAssertEqual(header, c["expect"] as? String, "\(c["name"]!)")
        }
    }
}
