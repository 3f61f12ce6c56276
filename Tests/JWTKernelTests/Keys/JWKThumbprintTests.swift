import XCTest

@testable import JWTKernel

/// RFC 7638 thumbprints.
final class JWKThumbprintTests: XCTestCase {
    func testRFC7638Example() throws {
        // RFC 7638 §3.1.
        let jwk = try JSONValue.parse(
            Array(
                #"""
                {"kty":"RSA","n":"0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw","e":"AQAB","alg":"RS256","kid":"2011-04-29"}
                """#.utf8))
        XCTAssertEqual(JWKThumbprint.sha256(jwk), "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
    }

    func testMissingMembersAndSecretsHaveNoThumbprint() throws {
        XCTAssertNil(JWKThumbprint.sha256(try JSONValue.parse(Array(#"{"kty":"RSA","n":"AQAB"}"#.utf8))))
        XCTAssertNil(JWKThumbprint.sha256(try JSONValue.parse(Array(#"{"kty":"oct","k":"AAAA"}"#.utf8))))
        XCTAssertNil(JWKThumbprint.sha256(try JSONValue.parse(Array(#"{"n":"x","e":"y"}"#.utf8))))
        XCTAssertNotNil(
            JWKThumbprint.sha256(
                try JSONValue.parse(
                    Array(#"{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#.utf8))))
    }
}
