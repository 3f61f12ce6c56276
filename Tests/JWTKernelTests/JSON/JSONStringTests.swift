import XCTest

@_spi(Internals) @testable import JWTKernel

/// String validation (UTF-8, escapes, surrogates) in `JSONParser`, and the
/// decoding, comparison and hashing of validated strings in `JSONString`.
final class JSONStringTests: XCTestCase {
    typealias K = JSONTestKit

    /// Runs `body` with the span of the JSON string literal `literal` (quotes included in the text).
    func withString<R>(_ literal: [UInt8], _ body: (JSONSpan, UnsafePointer<UInt8>) -> R) throws -> R {
        try literal.withUnsafeBytes { raw in
            var parser = JSONParser(raw)
            let span = try parser.parseDocument()
            XCTAssertEqual(span.kind, .string)
            return body(span, raw.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
    }

    func decoded(_ literal: String) throws -> [UInt8] {
        try withString(Array(literal.utf8)) { span, base in
            var out = [UInt8](repeating: 0, count: max(span.count, 1))
            let n = JSONString.decode(span, in: base, into: &out, capacity: out.count)!
            return Array(out[0..<n])
        }
    }

    func decodedString(_ literal: String) throws -> String {
        try withString(Array(literal.utf8)) { span, base in JSONString.string(span, in: base) }
    }

    func assertMalformed(_ bytes: [UInt8], _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(K.error(bytes)?.code, .malformed, label, file: file, line: line)
        // The same bytes as a member name and inside an array.
        XCTAssertEqual(
            K.error(Array("{".utf8) + bytes + Array(":1}".utf8))?.code, .malformed, "name: " + label, file: file,
            line: line)
        XCTAssertEqual(
            K.error(Array("[1,".utf8) + bytes + Array("]".utf8))?.code, .malformed, "element: " + label, file: file,
            line: line)
    }

    func quoted(_ inner: [UInt8]) -> [UInt8] { [0x22] + inner + [0x22] }

    // MARK: Escapes

    func testSimpleEscapes() throws {
        XCTAssertEqual(try decoded(#""\"\\\/\b\f\n\r\t""#), [0x22, 0x5C, 0x2F, 0x08, 0x0C, 0x0A, 0x0D, 0x09])
        XCTAssertEqual(try decodedString(#""https:\/\/x""#), "https://x")
        XCTAssertEqual(try decodedString(#""a\"b""#), "a\"b")
        XCTAssertEqual(try decodedString(#""\\\\""#), "\\\\")
        XCTAssertEqual(try decodedString(#""\\u0041""#), "\\u0041", "an escaped backslash, then plain text")
    }

    func testUnicodeEscapesBecomeUTF8() throws {
        XCTAssertEqual(try decoded(#""\u0041""#), [0x41])
        XCTAssertEqual(try decoded(#""\u0000""#), [0x00])
        XCTAssertEqual(try decoded(#""\u001f""#), [0x1F])
        XCTAssertEqual(try decoded(#""\u007F""#), [0x7F])
        XCTAssertEqual(try decoded(#""\u0080""#), [0xC2, 0x80])
        XCTAssertEqual(try decoded(#""\u00e9""#), [0xC3, 0xA9])
        XCTAssertEqual(try decoded(#""\u00E9""#), [0xC3, 0xA9], "hex digits are case-insensitive")
        XCTAssertEqual(try decoded(#""\u07ff""#), [0xDF, 0xBF])
        XCTAssertEqual(try decoded(#""\u0800""#), [0xE0, 0xA0, 0x80])
        XCTAssertEqual(try decoded(#""\u20ac""#), [0xE2, 0x82, 0xAC])
        XCTAssertEqual(try decoded(#""\ud7ff""#), [0xED, 0x9F, 0xBF])
        XCTAssertEqual(try decoded(#""\ue000""#), [0xEE, 0x80, 0x80])
        XCTAssertEqual(try decoded(#""\uffff""#), [0xEF, 0xBF, 0xBF])
        XCTAssertEqual(try decoded(#""\uFEFF""#), [0xEF, 0xBB, 0xBF])
    }

    func testSurrogatePairsBecomeOneFourByteSequence() throws {
        XCTAssertEqual(try decoded(#""\ud800\udc00""#), [0xF0, 0x90, 0x80, 0x80], "U+10000")
        XCTAssertEqual(try decoded(#""\ud83d\ude00""#), Array("😀".utf8))
        XCTAssertEqual(try decoded(#""\uD83D\uDE00""#), Array("😀".utf8))
        XCTAssertEqual(try decoded(#""\ud83e\udd16""#), Array("🤖".utf8))
        XCTAssertEqual(try decoded(#""\udbff\udfff""#), [0xF4, 0x8F, 0xBF, 0xBF], "U+10FFFF")
        XCTAssertEqual(try decodedString(#""a\ud83d\ude00b\u00e9c€""#), "a😀béc€")
        XCTAssertEqual(try decodedString(#""\ud83d\ude00\ud83d\ude00""#), "😀😀", "consecutive pairs")
    }

    func testLoneAndMisorderedSurrogatesAreRefused() {
        for text in [
            #""\ud800""#, #""\udbff""#, #""\udc00""#, #""\udfff""#, #""\ud800x""#, #""\ud800\u0041""#,
            #""\ud800\ud800""#, #""\udc00\ud800""#, #""\ud800\n""#, #""\ud800\\udc00""#, #""a\ud83d""#,
            #""\ud83d\u""#, #""\ud83d\ude0""#, #""\ud83d\uDE0G""#, #""\ud83d \ude00""#,
        ] {
            assertMalformed(Array(text.utf8), text)
        }
    }

    func testInvalidEscapesAreRefused() {
        for text in [
            #""\a""#, #""\x41""#, #""\'""#, #""\0""#, #""\U0041""#, #""\u""#, #""\u1""#, #""\u12""#, #""\u123""#,
            #""\u12G4""#, #""\u-123""#, #""\u 123""#, #""\v""#, #""\e""#, #""\%""#, #""\""#, #""abc\""#,
        ] {
            assertMalformed(Array(text.utf8), text)
        }
        // A backslash as the very last byte of input.
        assertMalformed([0x22, 0x5C], "quote backslash")
    }

    // MARK: Raw bytes

    func testEveryControlCharacterMustBeEscaped() {
        for b in UInt8(0)...UInt8(0x1F) {
            assertMalformed(quoted([0x61, b, 0x62]), "raw 0x\(String(b, radix: 16))")
        }
        XCTAssertNil(K.error(quoted([0x61, 0x7F, 0x62])), "DEL is not a control character for JSON")
        XCTAssertNil(K.error(quoted([0x20, 0x7E])))
    }

    func testValidUTF8Boundaries() throws {
        let valid: [[UInt8]] = [
            [0xC2, 0x80], [0xDF, 0xBF],  // U+0080, U+07FF
            [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF],  // U+0800, U+D7FF
            [0xEE, 0x80, 0x80], [0xEF, 0xBF, 0xBF],  // U+E000, U+FFFF
            [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF],  // U+10000, U+10FFFF
            Array("Zoë 名前 🤖".utf8),
        ]
        for bytes in valid {
            XCTAssertNil(K.error(quoted(bytes)), "\(bytes)")
            XCTAssertEqual(
                try withString(quoted(bytes)) { span, base in JSONString.string(span, in: base) },
                String(decoding: bytes, as: UTF8.self))
        }
    }

    func testInvalidUTF8IsRefused() {
        let invalid: [(String, [UInt8])] = [
            ("lone continuation", [0x80]), ("lone continuation bf", [0xBF]),
            ("overlong 2-byte c0", [0xC0, 0x80]), ("overlong 2-byte c1", [0xC1, 0xBF]),
            ("overlong slash", [0xC0, 0xAF]),
            ("overlong 3-byte", [0xE0, 0x9F, 0xBF]), ("overlong 3-byte slash", [0xE0, 0x80, 0xAF]),
            ("overlong 4-byte", [0xF0, 0x8F, 0xBF, 0xBF]),
            ("surrogate d800", [0xED, 0xA0, 0x80]), ("surrogate dfff", [0xED, 0xBF, 0xBF]),
            ("above U+10FFFF", [0xF4, 0x90, 0x80, 0x80]), ("f5", [0xF5, 0x80, 0x80, 0x80]),
            ("f8 5-byte", [0xF8, 0x88, 0x80, 0x80, 0x80]),
            ("fe", [0xFE]), ("ff", [0xFF]),
            ("2-byte missing continuation", [0xC3, 0x28]), ("3-byte bad second", [0xE2, 0x28, 0xA1]),
            ("3-byte bad third", [0xE2, 0x82, 0x28]), ("4-byte bad fourth", [0xF0, 0x9F, 0x98, 0x28]),
            ("truncated 2-byte", [0xC3]), ("truncated 3-byte", [0xE2, 0x82]), ("truncated 4-byte", [0xF0, 0x9F, 0x98]),
            ("CESU-8 pair", [0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80]),
            ("latin-1 é", [0xE9]),
        ]
        for (label, bytes) in invalid {
            assertMalformed(quoted(Array("a".utf8) + bytes + Array("b".utf8)), label)
            assertMalformed(quoted(bytes), label + " alone")
        }
        // A multi-byte sequence cut off by the end of input (no closing quote).
        for bytes: [UInt8] in [[0x22, 0xC3], [0x22, 0xE2, 0x82], [0x22, 0xF0, 0x9F, 0x98]] {
            XCTAssertEqual(K.error(bytes)?.code, .malformed, "\(bytes)")
        }
        // Invalid bytes outside strings are refused as well.
        XCTAssertEqual(K.error([0x5B, 0xC3, 0xA9, 0x5D])?.code, .malformed)
    }

    // MARK: JSONString operations

    /// Spans of the elements of a JSON array of strings, for comparison tests.
    func withElements<R>(_ text: String, _ body: ([JSONSpan], UnsafePointer<UInt8>) throws -> R) throws -> R {
        let doc = Array(text.utf8)
        XCTAssertNil(K.error(doc), text)
        return try doc.withUnsafeBytes { raw in
            let base = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var parser = JSONParser(bytes: base, count: raw.count, at: 0, maxDepth: JSONParser.defaultMaxDepth)
            var spans: [JSONSpan] = []
            try parser.parseArrayElements(depth: 1) { (span) throws(JWTError) in spans.append(span) }
            return try body(spans, base)
        }
    }

    func testEqualsComparesDecodedBytes() throws {
        try withElements(#"["https:\/\/x","https://x","https:\/\/y","\u0061","a","","\u00e9","é","a\u0000","\\"]"#) {
            spans, base in
            XCTAssertEqual(spans.count, 10)
            XCTAssertFalse(spans[1].escaped)
            XCTAssertTrue(spans[0].escaped)
            func eq(_ i: Int, _ text: String) -> Bool {
                Array(text.utf8).withUnsafeBytes { JSONString.equals(spans[i], in: base, $0) }
            }
            XCTAssertTrue(eq(0, "https://x"))
            XCTAssertTrue(eq(1, "https://x"))
            XCTAssertFalse(eq(2, "https://x"))
            XCTAssertFalse(eq(0, "https://x/"))
            XCTAssertFalse(eq(0, "https://"))
            XCTAssertFalse(eq(0, #"https:\/\/x"#), "never compared on the escaped text")
            XCTAssertTrue(eq(3, "a"))
            XCTAssertFalse(eq(3, "A"))
            XCTAssertTrue(eq(5, ""))
            XCTAssertFalse(eq(5, "a"))
            XCTAssertFalse(eq(4, ""))
            XCTAssertTrue(eq(6, "é"))
            XCTAssertTrue(eq(7, "é"))
            XCTAssertTrue(eq(8, "a\u{0}"))
            XCTAssertFalse(eq(8, "a"), "a trailing NUL is part of the value")
            XCTAssertTrue(eq(9, "\\"))
            XCTAssertTrue(JSONString.equals(spans[0], in: base, "https://x" as StaticString))
            XCTAssertFalse(JSONString.equals(spans[0], in: base, "https://y" as StaticString))

            // Span against span, in both directions and for every pair.
            XCTAssertTrue(JSONString.equals(spans[0], spans[1], in: base))
            XCTAssertTrue(JSONString.equals(spans[1], spans[0], in: base))
            XCTAssertTrue(JSONString.equals(spans[3], spans[4], in: base))
            XCTAssertTrue(JSONString.equals(spans[6], spans[7], in: base))
            XCTAssertFalse(JSONString.equals(spans[0], spans[2], in: base))
            XCTAssertFalse(JSONString.equals(spans[4], spans[8], in: base), "a vs a\\0: prefix is not equality")
            XCTAssertFalse(JSONString.equals(spans[8], spans[4], in: base))
            XCTAssertFalse(JSONString.equals(spans[5], spans[4], in: base))
            for i in spans.indices {
                for j in spans.indices {
                    let same = JSONString.string(spans[i], in: base) == JSONString.string(spans[j], in: base)
                    XCTAssertEqual(JSONString.equals(spans[i], spans[j], in: base), same, "\(i) vs \(j)")
                    if same {
                        XCTAssertEqual(
                            JSONNameKey(spans[i], in: base), JSONNameKey(spans[j], in: base), "key \(i) vs \(j)")
                    }
                }
            }
        }
    }

    func testNameKeyIsOverDecodedBytes() throws {
        try withElements(#"["alg","\u0061lg","\u0061\u006c\u0067","alG","kid"]"#) { spans, base in
            let hashes = spans.map { JSONNameKey($0, in: base) }
            XCTAssertEqual(hashes[0], hashes[1])
            XCTAssertEqual(hashes[0], hashes[2])
            XCTAssertNotEqual(hashes[0], hashes[3])
            XCTAssertNotEqual(hashes[0], hashes[4])
        }
    }

    func testDecodeRespectsCapacity() throws {
        try withElements(#"["abc","\u00e9\u00e9","\ud83d\ude00",""]"#) { spans, base in
            var buf = [UInt8](repeating: 0xAA, count: 8)
            XCTAssertEqual(JSONString.decode(spans[0], in: base, into: &buf, capacity: 3), 3)
            XCTAssertEqual(Array(buf[0..<3]), Array("abc".utf8))
            XCTAssertNil(JSONString.decode(spans[0], in: base, into: &buf, capacity: 2))
            XCTAssertEqual(JSONString.decode(spans[1], in: base, into: &buf, capacity: 4), 4)
            XCTAssertEqual(Array(buf[0..<4]), Array("éé".utf8))
            XCTAssertNil(JSONString.decode(spans[1], in: base, into: &buf, capacity: 3))
            XCTAssertEqual(JSONString.decode(spans[2], in: base, into: &buf, capacity: 4), 4)
            XCTAssertNil(
                JSONString.decode(spans[2], in: base, into: &buf, capacity: 3), "a 4-byte scalar does not fit in 3")
            XCTAssertEqual(JSONString.decode(spans[3], in: base, into: &buf, capacity: 0), 0)
        }
    }

    func testDecoderIteratorYieldsEveryByteOnce() throws {
        try withElements(#"["x\u00e9\u20ac\ud83d\ude00\n\/y"]"#) { spans, base in
            var it = JSONStringDecoder(spans[0], in: base)
            var out: [UInt8] = []
            while let b = it.next() { out.append(b) }
            XCTAssertEqual(out, Array("xé€😀\n/y".utf8))
            XCTAssertNil(it.next(), "stays exhausted")
        }
    }

    func testSpanOfAStringExcludesTheQuotes() throws {
        let span = try K.span(#""abc""#)
        XCTAssertEqual(span.kind, .string)
        XCTAssertEqual(span.start, 1)
        XCTAssertEqual(span.count, 3)
        XCTAssertFalse(span.escaped)
        XCTAssertTrue(try K.span(#""a\nb""#).escaped)
    }
}
