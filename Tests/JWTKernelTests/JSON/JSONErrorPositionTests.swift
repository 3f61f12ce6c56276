import XCTest

@_spi(Internals) @testable import JWTKernel

/// Where a malformed document went wrong: `JSONValue.parse` (configurations, key sets) notes the byte
/// offset the parser stopped at, and a message shows it as a line and column; the token path's
/// `JSONParser` errors carry none.
final class JSONErrorPositionTests: XCTestCase {
    func failure(_ text: String) -> JWTError? {
        do { _ = try JSONValue.parse(Array(text.utf8)) } catch { return error }
        return nil
    }

    func testTrailingCommaInAMultiLineConfiguration() throws {
        let text = "{\n  \"issuers\": [\"a\"],\n  \"audiences\": [\"b\"],\n}\n"
        let error = try XCTUnwrap(failure(text))
        XCTAssertEqual(error.detail.description, "expected member name")
        XCTAssertEqual(error.offset, text.utf8.count - 2, "at the closing brace")
        XCTAssertEqual(
            error.message(locatedIn: Array(text.utf8)), "expected member name at line 4, column 1")
    }

    func testEndOfDocumentAndOtherErrors() throws {
        let cases: [(String, String)] = [
            ("{\"a\":", "unexpected end of JSON at line 1, column 6"),
            ("[1,\n 2,\n 0x3]", "expected ',' or ']' at line 3, column 3"),
            ("{\"a\":1 \"b\":2}", "expected ',' or '}' at line 1, column 8"),
            ("{\"a\":-}", "bad JSON number at line 1, column 7"),
            ("-----BEGIN PUBLIC KEY-----\nMIIB", "bad JSON number at line 1, column 2"),
        ]
        for (text, want) in cases {
            let error = try XCTUnwrap(failure(text), text)
            XCTAssertEqual(error.message(locatedIn: Array(text.utf8)), want, text)
        }
    }

    /// Columns count characters, not bytes: an editor's column.
    func testColumnsCountCharacters() throws {
        let text = "{\"é😀\": 1,}"
        let error = try XCTUnwrap(failure(text))
        XCTAssertEqual(error.message(locatedIn: Array(text.utf8)), "expected member name at line 1, column 10")
        XCTAssertEqual(JSONTextPosition(offset: 0, in: Array(text.utf8)), JSONTextPosition(line: 1, column: 1))
        XCTAssertEqual(
            JSONTextPosition(offset: 1000, in: Array("a\nb".utf8)), JSONTextPosition(line: 2, column: 2),
            "past the end is the end")
    }

    /// The position is a note: the error is still the same error, and one without an offset renders as
    /// before.
    func testOffsetIsContextNotIdentity() throws {
        let error = try XCTUnwrap(failure("{,}"))
        XCTAssertEqual(error, JWTError(.malformed, "expected member name"))
        XCTAssertNil(JWTError(.malformed, "expected member name").offset)
        XCTAssertEqual(JWTError(.malformed, "x").message(locatedIn: Array("{}".utf8)), "x")
    }

    /// The token path's parser does not record positions (no cost there): only `JSONValue.parse` does.
    func testTokenPathParserRecordsNoOffset() {
        let bytes = Array("{\"a\":1,}".utf8)
        let error = bytes.withUnsafeBytes { raw -> JWTError? in
            var parser = JSONParser(raw)
            do throws(JWTError) { try parser.forEachTopLevelMember { (_, _) throws(JWTError) in } } catch {
                return error
            }
            return nil
        }
        XCTAssertEqual(error?.detail.description, "expected member name")
        XCTAssertNil(error?.offset)
    }

    /// A key set that is not JSON says where, too (nginx's and the C library's key-file messages).
    func testKeySetMessageHasThePosition() {
        XCTAssertThrowsError(try JWKSet(json: Array("{\"keys\":[\n".utf8))) { error in
            let e = error as? KeyError
            XCTAssertEqual(e?.code, .notAKeySet)
            XCTAssertEqual(e?.reason, "not valid JSON: unexpected end of JSON at line 2, column 1")
        }
    }
}
