import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

/// `KeyDocument`: the one rule, for every surface, by which a key file is JSON or PEM.
final class KeyDocumentTests: XCTestCase {
    func pem() throws -> String { try Fixtures.text("attacks/rsa-1.pub.pem") }

    func testJSONOrPEMDecidedOnce() throws {
        let pem = try pem()
        XCTAssertEqual(KeyDocument(Array(pem.utf8)), .pem(pem))
        XCTAssertEqual(KeyDocument(Array(("\u{FEFF}" + pem).utf8)), .pem(pem), "a byte order mark is dropped")
        XCTAssertEqual(
            KeyDocument(Array(("key for rsa-1:\n" + pem).utf8)), .pem("key for rsa-1:\n" + pem),
            "text may come before the boundary (RFC 7468 section 2)")
        XCTAssertEqual(KeyDocument(Array(" {\"keys\":[]}".utf8)), .json(Array(" {\"keys\":[]}".utf8)))
        // A {kid: PEM} map holds boundaries but opens a JSON object: JSON.
        let map = "{\"k\":\"-----BEGIN PUBLIC KEY-----\"}"
        XCTAssertEqual(KeyDocument(Array(map.utf8)), .json(Array(map.utf8)))
        XCTAssertEqual(KeyDocument(Array("nonsense".utf8)), .json(Array("nonsense".utf8)), "JSON's parser says why")
    }

    func testKeySets() throws {
        let set = try KeyDocument(Array(try pem().utf8)).keySet()
        XCTAssertEqual(set.keys.count, 1)
        XCTAssertNil(set.keys.first?.kid, "a PEM file names no kid")
        XCTAssertThrowsError(try KeyDocument(Array("{\"keys\":[".utf8)).keySet()) {
            XCTAssertEqual(($0 as? KeyError)?.reason, "not valid JSON: unexpected end of JSON at line 1, column 10")
        }
    }

    /// A private key is the commonest wrong file: the error says so and what to give instead.
    func testPrivateKeyPEMSaysWhatToUse() {
        let text = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n-----END PRIVATE KEY-----\n"
        XCTAssertThrowsError(try KeyDocument(Array(text.utf8)).keySet()) {
            let error = $0 as? KeyError
            XCTAssertEqual(error?.code, .notAKeySet)
            XCTAssertTrue(error?.reason.contains("private key") == true, error?.reason ?? "")
            XCTAssertTrue(error?.reason.contains("openssl pkey -in KEY -pubout") == true, error?.reason ?? "")
        }
    }
}
