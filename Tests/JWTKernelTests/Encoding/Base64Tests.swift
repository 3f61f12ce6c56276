import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

/// Strict standard base64 (the `x5c` alphabet), checked against Foundation's decoder.
final class Base64Tests: XCTestCase {
    func testAgreesWithFoundationOnEveryLengthAndByte() {
        var rng = SystemRandomNumberGenerator()
        for length in 0..<200 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let text = Data(bytes).base64EncodedString()
            XCTAssertEqual(Base64.decode(text), bytes, text)
        }
    }

    func testRefusesWhatIsNotCanonicalStandardBase64() {
        for bad in [
            "QQ", "QQ=", "QQ===", "Q===", "QR==", "QUI=Q", "QU=I", "QUJD\n", " QUJD", "QUJ-", "QUJ_", "QUJD====",
            "=QUJ",
        ] {
            XCTAssertNil(Base64.decode(bad), bad)
        }
        XCTAssertEqual(Base64.decode("QQ=="), [0x41])
        XCTAssertEqual(Base64.decode("QUI="), [0x41, 0x42])
        XCTAssertEqual(Base64.decode("+/8="), [0xFB, 0xFF])
        XCTAssertEqual(Base64.decode(""), [])
    }
}
