import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

#if canImport(Glibc)
import Glibc
#endif

/// Helpers over the span-based parser: it reads bytes it does not own, so every
/// call happens inside `withUnsafeBytes`.
enum JSONTestKit {
    /// nil when the document is valid, else the error.
    static func error(_ bytes: [UInt8], maxDepth: Int = JSONParser.defaultMaxDepth) -> JWTError? {
        bytes.withUnsafeBytes { raw -> JWTError? in
            var parser = JSONParser(raw, maxDepth: maxDepth)
            do throws(JWTError) { _ = try parser.parseDocument(); return nil } catch { return error }
        }
    }

    static func error(_ text: String, maxDepth: Int = JSONParser.defaultMaxDepth) -> JWTError? {
        error(Array(text.utf8), maxDepth: maxDepth)
    }

    static func span(_ text: String) throws -> JSONSpan {
        try Array(text.utf8).withUnsafeBytes { raw in
            var parser = JSONParser(raw)
            return try parser.parseDocument()
        }
    }

    /// The top-level members forEachTopLevelMember reports, decoded.
    static func members(_ bytes: [UInt8]) throws -> [(String, JSONKind)] {
        let result = bytes.withUnsafeBytes { raw -> Result<[(String, JSONKind)], JWTError> in
            var out: [(String, JSONKind)] = []
            var parser = JSONParser(raw)
            let base = raw.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) }
            do throws(JWTError) {
                try parser.forEachTopLevelMember { (name, value) throws(JWTError) in
                    out.append((JSONString.string(name, in: base!), value.kind))
                }
            } catch {
                return .failure(error)
            }
            return .success(out)
        }
        return try result.get()
    }

    static func members(_ text: String) throws -> [(String, JSONKind)] { try members(Array(text.utf8)) }

    static func nestedArrays(_ depth: Int, inner: String = "") -> String {
        String(repeating: "[", count: depth) + inner + String(repeating: "]", count: depth)
    }

    /// Runs `body` with the process's LC_NUMERIC set to a locale whose decimal
    /// separator is a comma (as a host application may set it), restoring it
    /// after. Uses an installed one, or compiles de_DE with `localedef` into a
    /// temporary LOCPATH; skips only when neither is possible.
    static func withCommaDecimalLocale(_ body: () throws -> Void) throws {
        let previous = String(cString: setlocale(LC_NUMERIC, nil))
        let names = [
            "de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "nl_NL.UTF-8", "ru_RU.UTF-8", "es_ES.UTF-8",
        ]
        func select() -> Bool {
            for name in names where setlocale(LC_NUMERIC, name) != nil {
                if String(cString: localeconv().pointee.decimal_point) == "," { return true }
            }
            return false
        }
        var usedLocPath = false
        if !select() {
            guard let dir = compiledLocaleDirectory else {
                setlocale(LC_NUMERIC, previous)
                throw XCTSkip("no locale with a comma decimal separator is installed, and localedef could not make one")
            }
            setenv("LOCPATH", dir, 1)
            usedLocPath = true
            guard select() else {
                unsetenv("LOCPATH")
                setlocale(LC_NUMERIC, previous)
                throw XCTSkip("the compiled de_DE locale could not be selected")
            }
        }
        defer {
            setlocale(LC_NUMERIC, previous)
            if usedLocPath { unsetenv("LOCPATH") }
        }
        try body()
    }

    /// A LOCPATH directory holding de_DE.UTF-8, compiled once per test run.
    static let compiledLocaleDirectory: String? = {
        let localedef = "/usr/bin/localedef"
        guard FileManager.default.isExecutableFile(atPath: localedef),
            FileManager.default.fileExists(atPath: "/usr/share/i18n/locales/de_DE")
        else { return nil }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jwtk-locales-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: localedef)
        process.arguments = ["-i", "de_DE", "-f", "UTF-8", dir.appendingPathComponent("de_DE.UTF-8").path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        process.waitUntilExit()
        return FileManager.default.fileExists(atPath: dir.appendingPathComponent("de_DE.UTF-8/LC_NUMERIC").path)
            ? dir.path : nil
    }()

    static func nestedObjects(_ depth: Int) -> String {
        String(repeating: "{\"a\":", count: depth - 1) + "{}" + String(repeating: "}", count: depth - 1)
    }
}

final class JSONParserTests: XCTestCase {
    typealias K = JSONTestKit

    func assertValid(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNil(K.error(text), "should parse: \(text.debugDescription)", file: file, line: line)
    }

    func assertMalformed(_ bytes: [UInt8], _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        let error = K.error(bytes)
        XCTAssertNotNil(error, "should be refused: \(label)", file: file, line: line)
        XCTAssertEqual(error?.code, .malformed, label, file: file, line: line)
    }

    func assertMalformed(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
        assertMalformed(Array(text.utf8), text.debugDescription, file: file, line: line)
    }

    // MARK: Literals and structure

    func testScalarsAndContainers() {
        for text in [
            "true", "false", "null", "0", "\"\"", "\"a\"", "[]", "{}", "[1,2,3]", "{\"a\":1}",
            "[true,false,null]", "{\"a\":{\"b\":[{}]}}", "[[],[[]],{}]", "{\"\":0}",
        ] {
            assertValid(text)
        }
    }

    func testInsignificantWhitespaceIsOnlySpaceTabLFCR() {
        assertValid(" \t\r\n{ \"a\" : [ 1 , 2 ] , \"b\" : { } }\n\r\t ")
        assertValid("[\n1\r,\t2 ]")
        for ws: [UInt8] in [[0x0B], [0x0C], [0xC2, 0xA0], [0xEF, 0xBB, 0xBF], [0xE2, 0x80, 0xA8], [0x00]] {
            assertMalformed(ws + Array("{}".utf8), "leading \(ws)")
            assertMalformed(Array("[1,".utf8) + ws + Array("2]".utf8), "inner \(ws)")
        }
    }

    func testEmptyAndTruncatedDocuments() {
        for text in [
            "", " ", "\n", "{", "[", "{\"a\"", "{\"a\":", "{\"a\":1", "{\"a\":1,", "[1", "[1,", "\"abc", "tru", "nul",
            "fals",
        ] {
            assertMalformed(text)
        }
    }

    func testTrailingBytesAreRefused() {
        for text in ["{}x", "{} {}", "{}{}", "[] []", "1 2", "true false", "{},", "\"a\"\"b\"", "{}\u{0}", "null;"] {
            assertMalformed(text)
        }
        assertValid("{}   \n")
    }

    func testNonJSONSyntaxIsRefused() {
        for text in [
            "{'a':1}", "['a']", "{a:1}", "{\"a\":1,}", "[1,]", "[,1]", "{,}", "{\"a\" 1}", "{\"a\"::1}",
            "{\"a\":1 \"b\":2}", "[1 2]", "/* c */ {}", "{} // c", "{\"a\":1 /* c */}", "# c\n{}",
            "True", "FALSE", "Null", "nil", "undefined", "{\"a\":undefined}", "{1:2}", "{null:1}",
            "[\"a\":1]", "{\"a\"}", "(1)", "<>", "\u{FEFF}{}",
        ] {
            assertMalformed(text)
        }
    }

    func testLiteralsAreExact() {
        for text in ["truex", "nullnull", "true1", "[truee]", "fals e", "t rue", "[nul]", "{\"a\":tru}"] {
            assertMalformed(text)
        }
    }

    // MARK: Numbers

    func testValidNumberGrammar() {
        for n in [
            "0", "-0", "1", "-1", "9", "10", "1234567890", "-9876543210", "0.0", "-0.0", "0.5", "1.5", "10.01",
            "1e5", "1E5", "1e+5", "1e-5", "1E+05", "0e0", "-0e-0", "1.5e10", "2.5E-3", "123456789012345678901234567890",
            "0.000000000000000000001", "1e400", "-1e400", "1e-400", "1700000000", "9007199254740993",
        ] {
            assertValid(n)
            assertValid("[\(n)]")
            assertValid("{\"n\":\(n)}")
            XCTAssertEqual(try? K.span(n).kind, .number, n)
            XCTAssertEqual(try? K.span(n).count, n.utf8.count, "the span covers the whole number: \(n)")
        }
    }

    func testInvalidNumberGrammar() {
        for n in [
            "01", "00", "-01", "-00", "007", "+1", "+0", ".5", "-.5", "1.", "-1.", "1.e5", "1e", "1E", "1e+", "1e-",
            "-", "--1", "- 1", "1..2", "1.2.3", "1e5.5", "1e5e5", "0x10", "0X1A", "0b1", "0o7", "1_000", "1,000",
            "NaN", "-NaN", "nan", "Infinity", "-Infinity", "inf", "1f", "1d", "1L", "١", "１", "1 .5", "1. 5", "1e 5",
        ] {
            assertMalformed(n)
            assertMalformed("[\(n)]")
            assertMalformed("{\"n\":\(n)}")
        }
    }

    func testNumericValuesOfNumberSpans() throws {
        func value(_ text: String) throws -> Double {
            let bytes = Array(text.utf8)
            let span = try K.span(text)
            return bytes.withUnsafeBufferPointer { JSONNumber.double(span, in: $0.baseAddress!) }
        }
        XCTAssertEqual(try value("0"), 0)
        XCTAssertEqual(try value("-0"), 0)
        XCTAssertEqual(try value("1700000000"), 1_700_000_000)
        XCTAssertEqual(try value("-1700000000"), -1_700_000_000)
        XCTAssertEqual(try value("999999999999999"), 999_999_999_999_999, "15 digits: the exact fast path")
        XCTAssertEqual(try value("1234567890123456"), 1_234_567_890_123_456, "16 digits: strtod")
        XCTAssertEqual(try value("9007199254740993"), 9_007_199_254_740_992, "correctly rounded to even")
        XCTAssertEqual(try value("1.5"), 1.5)
        XCTAssertEqual(try value("-2.25"), -2.25)
        XCTAssertEqual(try value("0.1"), 0.1)
        XCTAssertEqual(try value("1700000000.5"), 1_700_000_000.5)
        XCTAssertEqual(try value("1.7e9"), 1_700_000_000)
        XCTAssertEqual(try value("17E8"), 1_700_000_000)
        XCTAssertEqual(try value("1e-3"), 0.001)
        XCTAssertEqual(try value("1e400"), .infinity)
        XCTAssertEqual(try value("-1e400"), -.infinity)
        XCTAssertEqual(try value("1e-400"), 0)
        XCTAssertEqual(try value("123456789012345678901234567890"), 1.2345678901234568e29)
    }

    /// NumericDate values must not depend on the C locale: `strtod` reads
    /// "1.7e9" as 1 under a locale whose decimal separator is a comma.
    func testNumericValuesDoNotDependOnTheLocale() throws {
        try K.withCommaDecimalLocale {
            for (text, expected) in [
                ("1.5", 1.5), ("1.7e9", 1.7e9), ("1700000000.5", 1_700_000_000.5), ("1e3", 1000.0),
                ("1234567890123456789", 1.2345678901234568e18),
            ] {
                let bytes = Array(text.utf8)
                let span = try K.span(text)
                XCTAssertEqual(
                    bytes.withUnsafeBufferPointer { JSONNumber.double(span, in: $0.baseAddress!) }, expected,
                    "\(text) under a comma-decimal locale")
            }
        }
    }

    // MARK: Depth

    func testDepthLimitIs32Exactly() {
        XCTAssertEqual(JSONParser.defaultMaxDepth, 32)
        assertValid(K.nestedArrays(32))
        assertValid(K.nestedArrays(32, inner: "1"))
        assertValid(K.nestedObjects(32))
        assertMalformed(K.nestedArrays(33))
        assertMalformed(K.nestedArrays(33, inner: "1"))
        assertMalformed(K.nestedObjects(33))
        XCTAssertEqual(K.error(K.nestedArrays(33))?.message, "JSON nested too deeply")
        // Mixed containers count alike; scalars do not add a level.
        var doc = "1"
        for level in 0..<32 { doc = level.isMultiple(of: 2) ? "[\(doc)]" : "{\"k\":\(doc)}" }
        assertValid(doc)
        assertMalformed("[\(doc)]")
        assertMalformed("{\"k\":\(doc)}")
    }

    func testDepthLimitAppliesInsideObjectsAndArraysAlike() {
        // 31 levels below a top-level object: 32 in all.
        assertValid("{\"x\":\(K.nestedArrays(31))}")
        assertMalformed("{\"x\":\(K.nestedArrays(32))}")
        assertValid("[0,\(K.nestedArrays(31))]")
        assertMalformed("[0,\(K.nestedArrays(32))]")
        // A sibling that is shallow does not reset the count for a deep one.
        assertMalformed("[\(K.nestedArrays(2)),\(K.nestedArrays(32))]")
    }

    func testCustomMaxDepth() {
        XCTAssertNil(K.error("1", maxDepth: 0))
        XCTAssertNotNil(K.error("[]", maxDepth: 0))
        XCTAssertNil(K.error("[]", maxDepth: 1))
        XCTAssertNil(K.error("{\"a\":1}", maxDepth: 1))
        XCTAssertNotNil(K.error("[[]]", maxDepth: 1))
        XCTAssertNotNil(K.error("{\"a\":{}}", maxDepth: 1))
        XCTAssertNil(K.error(K.nestedArrays(100), maxDepth: 100))
        XCTAssertNotNil(K.error(K.nestedArrays(101), maxDepth: 100))
    }

    func testVeryDeepInputFailsWithoutExhaustingTheStack() {
        assertMalformed(K.nestedArrays(200_000))
        assertMalformed(String(repeating: "[", count: 1_000_000))
        assertMalformed(String(repeating: "{\"a\":", count: 200_000))
    }

    // MARK: Top-level members and duplicates

    func testTopLevelMembersAreReportedInOrderDecoded() throws {
        let members = try K.members(
            "{\"alg\":\"HS256\",\"k\\u0069d\":\"x\",\"n\":1,\"a\":[1],\"o\":{},\"t\":true,\"f\":false,\"z\":null}")
        XCTAssertEqual(members.map(\.0), ["alg", "kid", "n", "a", "o", "t", "f", "z"])
        XCTAssertEqual(members.map(\.1), [.string, .string, .number, .array, .object, .true, .false, .null])
        XCTAssertEqual(try K.members("{}").count, 0)
        XCTAssertEqual(try K.members(" { } ").count, 0)
    }

    func testTopLevelMustBeAnObject() {
        for text in ["[]", "[{\"a\":1}]", "\"{}\"", "1", "null", "true", "", " "] {
            XCTAssertThrowsError(try K.members(text), text) { XCTAssertEqual(($0 as? JWTError)?.code, .malformed) }
        }
        XCTAssertThrowsError(try K.members("{\"a\":1}x"))
        XCTAssertThrowsError(try K.members("{\"a\":1}{}"))
    }

    func testDuplicateMemberNamesAreRefusedAfterUnescaping() {
        let duplicates = [
            "{\"a\":1,\"a\":2}",
            "{\"a\":1,\"a\":1}",
            "{\"alg\":\"HS256\",\"\\u0061lg\":\"none\"}",
            "{\"\\u0061\\u006C\\u0067\":1,\"alg\":2}",
            "{\"/\":1,\"\\/\":2}",
            "{\"a\\\\b\":1,\"a\\u005cb\":2}",
            "{\"\\n\":1,\"\\u000a\":2}",
            "{\"é\":1,\"\\u00e9\":2}",
            "{\"€\":1,\"\\u20AC\":2}",
            "{\"😀\":1,\"\\ud83d\\ude00\":2}",
            "{\"\":1,\"\":2}",
            "{\"a\":1,\"b\":2,\"c\":3,\"a\":4}",
            "{\"x\":{\"a\":1},\"x\":[]}",
        ]
        for text in duplicates {
            XCTAssertThrowsError(try K.members(text), text) { error in
                XCTAssertEqual((error as? JWTError)?.code, .malformed, text)
                XCTAssertEqual((error as? JWTError)?.message, "duplicate member name", text)
            }
        }
    }

    func testDistinctNamesThatLookAlikeAreNotDuplicates() throws {
        for text in [
            "{\"a\":1,\"A\":2}", "{\"a\":1,\"a \":2}", "{\"a\":1,\" a\":2}", "{\"é\":1,\"e\\u0301\":2}",
            "{\"a\":1,\"a\\u0000\":2}", "{\"alg\":1,\"alg\\u0000\":2}", "{\"ab\":1,\"ba\":2}", "{\"\":1,\" \":2}",
        ] {
            XCTAssertEqual(try K.members(text).count, 2, text)
        }
    }

    func testDuplicatesBeyondTheInlineNameTable() throws {
        let names = (0..<200).map { "\"m\($0)\":\($0)" }
        XCTAssertEqual(try K.members("{" + names.joined(separator: ",") + "}").count, 200)
        for dup in [0, 5, 63, 64, 65, 100, 199] {
            let text = "{" + names.joined(separator: ",") + ",\"m\(dup)\":0}"
            XCTAssertThrowsError(try K.members(text), "duplicate of member \(dup)")
            let escaped = "{" + names.joined(separator: ",") + ",\"\\u006d\(dup)\":0}"
            XCTAssertThrowsError(try K.members(escaped), "escaped duplicate of member \(dup)")
        }
        // A duplicate between two names that both live past the inline table.
        let late = "{" + names.joined(separator: ",") + ",\"late\":1,\"l\\u0061te\":2}"
        XCTAssertThrowsError(try K.members(late))
    }

    func testDuplicatesAreRejectedAtEveryDepthButNotAcrossObjects() throws {
        // The same name in two different objects is no duplicate; twice in one nested object is.
        XCTAssertEqual(try K.members("{\"a\":{\"a\":1},\"b\":{\"a\":2}}").count, 2)
        XCTAssertThrowsError(try K.members("{\"x\":{\"a\":1,\"a\":2}}"))
        XCTAssertThrowsError(try K.members("{\"x\":[{\"a\":1,\"\\u0061\":2}]}"))
    }
}
