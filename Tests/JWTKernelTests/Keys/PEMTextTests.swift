import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

/// RFC 7468 section 2: text before `-----BEGIN` is allowed; the kernel skips it (and a BOM or
/// whitespace on the boundary's line, which OpenSSL alone does not), then parses one block strictly.
final class PEMTextTests: XCTestCase {
    func pem() throws -> String { try Fixtures.text("attacks/rsa-1.pub.pem") }

    func testLeadingTextWhitespaceAndBOMAreSkipped() throws {
        let reference = try VerificationKey(pem: try pem())
        for prefix in ["\n", "  ", "\r\n\t", "\u{FEFF}", "\u{FEFF}\n", "key for rsa-1:\n", "  \u{FEFF}"] {
            let key = try VerificationKey(pem: prefix + (try pem()), kid: "k")
            XCTAssertTrue(key.hasSameMaterial(as: reference), prefix.debugDescription)
        }
    }

    func testPEMMapValuesWithLeadingWhitespaceLoad() throws {
        let value = "\n" + (try pem())
        let document = try JSONSerialization.data(withJSONObject: ["rsa-1": value, "rsa-1b": "\u{FEFF}" + (try pem())])
        let set = try JWKSet(json: Array(document))
        XCTAssertEqual(Set(set.keys.compactMap(\.kid)), ["rsa-1", "rsa-1b"])
        XCTAssertEqual(set.rejected.count, 0)
    }

    func testNoBoundaryOrTwoBlocksAreRefused() throws {
        XCTAssertThrowsError(try VerificationKey(pem: "no boundary here")) {
            XCTAssertEqual(($0 as? KeyError)?.code, .notAKeySet)
        }
        XCTAssertThrowsError(try VerificationKey(pem: try pem() + pem(), kid: "two")) {
            XCTAssertEqual(($0 as? KeyError)?.code, .malformed)
            XCTAssertEqual(($0 as? KeyError)?.kid, "two")
        }
        XCTAssertEqual(PEMText.blockCount(try pem() + "\n" + pem() + pem()), 3)
        XCTAssertFalse(PEMText.isPEM(Array("-----BEGIN".utf8)), "the boundary needs its label's space")
    }
}
