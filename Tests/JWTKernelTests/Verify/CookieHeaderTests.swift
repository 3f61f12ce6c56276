import XCTest

@testable import JWTKernel

/// The cookie grammar of `jwtk_cookie_value` (RFC 6265 section 4.2.1 cookie-string, read as section 5.4).
final class CookieHeaderTests: XCTestCase {
    /// The value of `name` in `header`, as text, or nil when absent.
    private func value(_ header: String, _ name: String) -> String? {
        let h = Array(header.utf8)
        let n = Array(name.utf8)
        let range = h.withUnsafeBytes { hb in n.withUnsafeBytes { CookieHeader.valueRange(in: hb, name: $0) } }
        return range.map { String(decoding: h[$0], as: UTF8.self) }
    }

    func testPairsSeparatedBySemicolonSpace() {
        XCTAssertEqual(value("a=1; jwt=eyJ.x.y; b=2", "jwt"), "eyJ.x.y")
        XCTAssertEqual(value("jwt=first", "jwt"), "first")
        XCTAssertEqual(value("a=1; b=2; jwt=last", "jwt"), "last")
    }

    func testSpacesAndTabsAroundNamesAndValues() {
        XCTAssertEqual(value("a=1;jwt=t", "jwt"), "t", "no space after ;")
        XCTAssertEqual(value("a=1;   jwt = t  ; b=2", "jwt"), "t")
        XCTAssertEqual(value("\tjwt=\tt\t", "jwt"), "t")
        XCTAssertEqual(value("jwt=a b", "jwt"), "a b", "inner spaces stay: the verifier refuses them")
    }

    func testQuotedValue() {
        XCTAssertEqual(value("jwt=\"abc\"", "jwt"), "abc")
        XCTAssertEqual(value("jwt=\"\"", "jwt"), "")
        XCTAssertEqual(value("jwt=\"", "jwt"), "\"", "one DQUOTE is no quoting")
        XCTAssertEqual(value("jwt=\"abc", "jwt"), "\"abc")
    }

    func testNamePrefixesAndSuffixesDoNotMatch() {
        XCTAssertNil(value("xjwt=1", "jwt"))
        XCTAssertNil(value("jwtx=1", "jwt"))
        XCTAssertEqual(value("xjwt=1; jwt=2; jwtx=3", "jwt"), "2")
        XCTAssertNil(value("JWT=1", "jwt"), "names are case-sensitive")
        XCTAssertNil(value("a=jwt=1", "jwt"), "a name inside a value is not a name")
    }

    func testEmptyValueIsPresent() {
        XCTAssertEqual(value("jwt=", "jwt"), "")
        XCTAssertEqual(value("jwt=; b=2", "jwt"), "")
        XCTAssertEqual(value("jwt=  ", "jwt"), "")
    }

    func testMissing() {
        XCTAssertNil(value("", "jwt"))
        XCTAssertNil(value("a=1; b=2", "jwt"))
        XCTAssertNil(value(";;; ;", "jwt"))
        XCTAssertNil(value("a=1", ""), "an empty name matches nothing")
        XCTAssertNil(value("=1", ""))
    }

    func testFirstOfDuplicateNamesWins() {
        XCTAssertEqual(value("jwt=one; jwt=two", "jwt"), "one")
        XCTAssertEqual(value("jwt; jwt=two", "jwt"), "two", "a pair without = is skipped")
    }

    func testMalformedPairsAreSkipped() {
        XCTAssertEqual(value("garbage; jwt=t", "jwt"), "t")
        XCTAssertEqual(value("jwt; other", "jwt"), nil)
        XCTAssertEqual(value(";jwt=t;", "jwt"), "t")
        XCTAssertEqual(value("=x; jwt=t", "jwt"), "t", "a pair with an empty name")
    }

    func testNonASCIIBytesMatchExactly() {
        XCTAssertEqual(value("jwté=1; jwt=2", "jwt"), "2")
        XCTAssertEqual(value("jwté=1; jwt=2", "jwté"), "1")
        XCTAssertEqual(value("jwt=é€", "jwt"), "é€", "the value's bytes are given as they are")
        // A lone continuation byte and a NUL in other pairs do not stop the scan.
        let header: [UInt8] = Array("a=".utf8) + [0x80, 0x00] + Array("; jwt=t".utf8)
        let range = header.withUnsafeBytes { hb in
            Array("jwt".utf8).withUnsafeBytes { CookieHeader.valueRange(in: hb, name: $0) }
        }
        XCTAssertEqual(range.map { Array(header[$0]) }, Array("t".utf8))
    }
}
