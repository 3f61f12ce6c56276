import XCTest

@_spi(Internals) @testable import JWTKernel

/// Header members the kernel acts on beyond alg/kid/typ: `b64` (RFC 7797) and its
/// interplay with `crit`.
final class JOSEHeaderTests: XCTestCase {
    let secret = [UInt8](repeating: 0x42, count: 32)
    let claims = #"{"exp":1700003600}"#

    func outcome(_ header: String) -> JWTErrorCode? {
        let keys = JWKSet(keys: [try! VerificationKey(hmacSecret: secret, kid: "k")])
        let verifier = JWTVerifier(keys: keys, clock: FixedClock(1_700_000_000))
        do {
            _ = try verifier.verify(AttackSigner.token(header: header, claims: claims, key: secret))
            return nil
        } catch {
            return error.code
        }
    }

    func testUnencodedPayloadIsRefusedWithOrWithoutCrit() {
        // RFC 7797 §7: JWTs must not use b64:false. Without crit it used to pass unnoticed.
        XCTAssertEqual(outcome(#"{"alg":"HS256","kid":"k","b64":false}"#), .malformed)
        XCTAssertEqual(outcome(#"{"alg":"HS256","kid":"k","b64":false,"crit":["b64"]}"#), .critUnsupported)
        XCTAssertEqual(outcome(#"{"alg":"HS256","kid":"k","b64":"false"}"#), .malformed)
        XCTAssertEqual(outcome(#"{"alg":"HS256","kid":"k","b64":null}"#), .malformed)
        XCTAssertEqual(outcome(#"{"alg":"HS256","kid":"k","b\u0036\u0034":false}"#), .malformed)
    }

    func testExplicitDefaultB64IsAccepted() {
        XCTAssertNil(outcome(#"{"alg":"HS256","kid":"k","b64":true}"#))
        XCTAssertNil(outcome(#"{"alg":"HS256","kid":"k"}"#))
    }
}
