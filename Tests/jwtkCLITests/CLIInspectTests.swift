import Foundation
import XCTest

/// `jwtk inspect TOKEN` prints the header and claims, marked NOT verified.
final class CLIInspectTests: XCTestCase {
    typealias F = CLIFixtures

    func inspect(_ token: String) throws -> (CLIRun, String) {
        let run = try CLIHarness.run(["inspect", token])
        return (run, String(decoding: run.stdout, as: UTF8.self))
    }

    func testPrintsHeaderAndClaimsMarkedNotVerified() throws {
        let (run, out) = try inspect(try F.token("valid_RS256"))
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(out.contains("NOT VERIFIED"), out)
        XCTAssertTrue(out.contains("\"alg\": \"RS256\""), out)
        XCTAssertTrue(out.contains("\"kid\": \"rsa-1\""), out)
        XCTAssertTrue(out.contains("\"iss\": \"\(AttackSuite.issuer)\""), out)
        XCTAssertTrue(out.contains("\"exp\": \(AttackSuite.now + 3600)"), out)
        XCTAssertLessThan(
            out.range(of: "NOT VERIFIED")!.lowerBound, out.range(of: "RS256")!.lowerBound, "the warning comes first")
        XCTAssertFalse(out.contains("\"valid\""), "inspect never claims validity")
    }

    func testInspectDoesNotVerify() throws {
        // Forged, expired and alg-none tokens are shown just the same, still marked.
        for name in ["RS256_signed_by_attacker", "exp_long_ago", "alg_none_empty_signature"] {
            let (run, out) = try inspect(try F.token(name))
            XCTAssertEqual(run.status, 0, "\(name): \(run.stderr)")
            XCTAssertTrue(out.contains("NOT VERIFIED"), name)
        }
        let (_, none) = try inspect(try F.token("alg_none_empty_signature"))
        XCTAssertTrue(none.contains("\"alg\": \"none\""), none)
    }

    func testUndecodableTokensFailWithTheWarningStillShown() throws {
        for token in ["a.b", "a.b.c.d", "!!!.e30.x", "e30.!!!.x"] {
            let (run, out) = try inspect(token)
            XCTAssertNotEqual(run.status, 0, token)
            XCTAssertTrue(out.contains("NOT VERIFIED"), token)
        }
        // Strict JSON: a duplicate member is not shown as if it were one claim.
        let (run, _) = try inspect(try F.token("claims_dup_exp"))
        XCTAssertNotEqual(run.status, 0)
    }

    func testPrintsEscapedAndUnicodeClaimsDecoded() throws {
        let (run, out) = try inspect(try F.token("iss_escaped_solidus_equal"))
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(out.contains("\"iss\": \"https://issuer.example\""), out)
        let (_, unicode) = try inspect(try F.token("valid_unicode_claims"))
        XCTAssertTrue(unicode.contains("Zoë 🤖 名前"), unicode)
    }
}
