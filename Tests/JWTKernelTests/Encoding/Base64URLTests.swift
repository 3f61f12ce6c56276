import XCTest

@_spi(Internals) @testable import JWTKernel

final class Base64URLTests: XCTestCase {
    func testRoundTripsEveryLength() {
        for n in 0..<64 {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let text = Base64URL.encode(bytes)
            XCTAssertFalse(text.contains("="))
            XCTAssertEqual(Base64URL.decode(text), bytes, "length \(n)")
        }
    }

    func testRejectsNonCanonicalTrailingBits() {
        XCTAssertEqual(Base64URL.decode("QQ"), [0x41])
        XCTAssertNil(Base64URL.decode("QR"), "unused low bits must be zero")
        XCTAssertEqual(Base64URL.decode("QUI"), [0x41, 0x42])
        XCTAssertNil(Base64URL.decode("QUJ"))
    }

    func testRejectsPaddingWhitespaceAndStandardAlphabet() {
        XCTAssertNil(Base64URL.decode("QQ=="))
        XCTAssertNil(Base64URL.decode("QUI="))
        XCTAssertNil(Base64URL.decode("QU I"))
        XCTAssertNil(Base64URL.decode("QUI\n"))
        XCTAssertNil(Base64URL.decode("+/+/"))
        XCTAssertEqual(Base64URL.decode("-_-_"), [0xFB, 0xFF, 0xBF])
        XCTAssertNil(Base64URL.decode("A"), "4n+1 characters cannot encode anything")
    }
}
