import JWTKernel
import XCTest

@testable import JWTKernelC

/// The C library's UTF-8 check of names (issuers, claim names) against the core's JSON parser's
/// check of string contents: the same verdict on every 1- and 2-byte sequence, every 3-byte one with
/// a lead of each 3-byte class, and the interesting corners of 4-byte ones (both follow RFC 3629).
final class InputUTF8Tests: XCTestCase {
    /// Bytes JSON itself refuses inside a string whatever the encoding (controls, quote, backslash).
    static func jsonSpecial(_ b: UInt8) -> Bool { b < 0x20 || b == 0x22 || b == 0x5C }

    func agree(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> Bool {
        let library = bytes.withUnsafeBytes { InputBytes.isValidUTF8($0) }
        let parser = (try? JSONValue.parse([0x22] + bytes + [0x22])) != nil
        if library != parser {
            XCTFail(
                "\(bytes.map { String($0, radix: 16) }): library \(library), JSON parser \(parser)", file: file,
                line: line)
            return false
        }
        return true
    }

    func testAgreesWithTheJSONParser() {
        var checked = 0, valid = 0
        func check(_ bytes: [UInt8]) {
            guard !bytes.contains(where: Self.jsonSpecial) else { return }
            checked += 1
            if bytes.withUnsafeBytes({ InputBytes.isValidUTF8($0) }) { valid += 1 }
            _ = agree(bytes)
        }
        for b0 in UInt8(0x20)...0xFF {
            check([b0])
            for b1 in UInt8.min...UInt8.max where b0 >= 0x80 { check([b0, b1]) }
        }
        // Each class of 3-byte lead (RFC 3629 table): E0, E1-EC, ED, EE-EF, with both ends of the ranges.
        for b0: UInt8 in [0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF] {
            for b1 in UInt8.min...UInt8.max { for b2 in UInt8.min...UInt8.max { check([b0, b1, b2]) } }
        }
        let corners: [UInt8] = [0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF]
        for b0 in UInt8(0xF0)...0xFF {
            for b1 in UInt8.min...UInt8.max {
                for b2 in corners { for b3 in corners { check([b0, b1, b2, b3]) } }
                check([b0, b1, 0x80])  // truncated
            }
        }
        // After ASCII (the library's fast path skips it first).
        check([0x61, 0x62, 0xC3, 0xA9])
        check([0x61, 0x62, 0xC3])
        check([0x61, 0xED, 0xA0, 0x80])
        XCTAssertGreaterThan(checked, 300_000)
        XCTAssertGreaterThan(valid, 15_000, "both valid and invalid sequences were compared")
    }

    func testKnownSequences() {
        func valid(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { InputBytes.isValidUTF8($0) } }
        XCTAssertTrue(valid([]))
        XCTAssertTrue(valid(Array("https://issuer.example".utf8)))
        XCTAssertTrue(valid(Array("é€𝄞".utf8)))
        XCTAssertFalse(valid([0xC0, 0xAF]), "overlong /")
        XCTAssertFalse(valid([0xED, 0xA0, 0x80]), "surrogate")
        XCTAssertFalse(valid([0xF4, 0x90, 0x80, 0x80]), "above U+10FFFF")
        XCTAssertFalse(valid([0xFF, 0xFE]))
        XCTAssertFalse(valid([0x61, 0xE2, 0x82]), "truncated")
    }
}
