import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

/// `JSONValue` (the tree for cold paths) and `JSONText.compact`.
final class JSONValueTests: XCTestCase {
    func parse(_ text: String) throws -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    func testBuildsTheTree() throws {
        let value = try parse(
            #"{"s":"a\u00e9\ud83d\ude00","n":-1.5e3,"t":true,"f":false,"z":null,"a":[1,"x",[]],"o":{"k":{}}}"#)
        XCTAssertEqual(value["s"], .string("aé😀"))
        XCTAssertEqual(value["n"], .number("-1.5e3"), "numbers keep their text")
        XCTAssertEqual(value["n"]?.doubleValue, -1500)
        XCTAssertEqual(value["t"], .bool(true))
        XCTAssertEqual(value["f"], .bool(false))
        XCTAssertEqual(value["z"], .null)
        XCTAssertEqual(value["a"], .array([.number("1"), .string("x"), .array([])]))
        XCTAssertEqual(value["o"]?["k"], .object([]))
        XCTAssertNil(value["missing"])
        XCTAssertEqual(value.objectValue?.map(\.name), ["s", "n", "t", "f", "z", "a", "o"], "member order is kept")
        XCTAssertEqual(value["s"]?.stringValue, "aé😀")
        XCTAssertNil(value["n"]?.stringValue)
        XCTAssertNil(value["s"]?.arrayValue)
        XCTAssertNil(value["a"]?.objectValue)
        XCTAssertNil(value["a"]?["x"], "subscript on a non-object")
    }

    func testScalarDocuments() throws {
        XCTAssertEqual(try parse("1"), .number("1"))
        XCTAssertEqual(try parse(" \"x\" "), .string("x"))
        XCTAssertEqual(try parse("null"), .null)
        XCTAssertEqual(try parse("[]"), .array([]))
        XCTAssertThrowsError(try JSONValue.parse([UInt8]()), "an empty document")
    }

    func testMemberNamesAreDecoded() throws {
        let value = try parse(#"{"k\u0069d":"x","\/":1}"#)
        XCTAssertEqual(value["kid"], .string("x"))
        XCTAssertEqual(value["/"], .number("1"))
    }

    func testDuplicatesAreRefusedAtEveryDepth() {
        for text in [
            #"{"a":1,"a":2}"#, #"{"a":1,"\u0061":2}"#, #"{"x":{"a":1,"a":2}}"#, #"[{"a":1,"a":2}]"#,
            #"{"x":[[{"b":{"c":1,"\u0063":2}}]]}"#, #"{"x":{"😀":1,"\ud83d\ude00":2}}"#,
        ] {
            XCTAssertThrowsError(try parse(text), text) { error in
                XCTAssertEqual((error as? JWTError)?.code, .malformed, text)
            }
        }
        XCTAssertNoThrow(
            try parse(#"{"x":{"a":1},"y":{"a":2},"a":[{"a":3},{"a":4}]}"#), "same name in different objects")
    }

    func testRefusesWhatTheParserRefuses() {
        for text in [
            "", "{", "{}x", "[1,]", "01", "+1", "NaN", "'a'", "{\"a\":1,}", "\"\\ud800\"", "\"\\x\"", "\u{FEFF}{}",
        ] {
            XCTAssertThrowsError(try parse(text), text.debugDescription)
        }
        XCTAssertThrowsError(try JSONValue.parse([0x22, 0xC0, 0xAF, 0x22]), "overlong UTF-8")
        XCTAssertThrowsError(try JSONValue.parse([0x22, 0x01, 0x22]), "raw control character")
    }

    func testDepthLimitIs32Exactly() throws {
        XCTAssertNoThrow(try parse(JSONTestKit.nestedArrays(32)))
        XCTAssertThrowsError(try parse(JSONTestKit.nestedArrays(33)))
        XCTAssertNoThrow(try parse(JSONTestKit.nestedObjects(32)))
        XCTAssertThrowsError(try parse(JSONTestKit.nestedObjects(33)))
        XCTAssertNoThrow(try JSONValue.parse(Array(JSONTestKit.nestedArrays(40).utf8), maxDepth: 40))
        XCTAssertThrowsError(try JSONValue.parse(Array(JSONTestKit.nestedArrays(41).utf8), maxDepth: 40))
        XCTAssertThrowsError(try JSONValue.parse(Array("[]".utf8), maxDepth: 0))
        // The 32-level tree is really built, all the way down.
        var value = try parse(JSONTestKit.nestedArrays(32, inner: "7"))
        for _ in 0..<32 { value = value.arrayValue!.first! }
        XCTAssertEqual(value, .number("7"))
    }

    func testSerializationRoundTrips() throws {
        let texts = [
            #"{"a":[1,2.5,-3e-2],"b":{"c":null,"d":true,"e":false},"s":"x\"y\\z\n\t\r\u0001/é😀"}"#,
            #"[]"#, #"{}"#, #"[[],{},""]"#, #""\u0000""#,
        ]
        for text in texts {
            let value = try parse(text)
            let compact = value.serialized()
            XCTAssertEqual(try parse(compact), value, "compact round trip: \(compact)")
            let pretty = value.serialized(pretty: true)
            XCTAssertEqual(try parse(pretty), value, "pretty round trip: \(pretty)")
            XCTAssertFalse(compact.contains("\n"), "compact output is one line")
        }
        XCTAssertEqual(try parse(#"{"a" : [ 1 , "b" ] }"#).serialized(), #"{"a":[1,"b"]}"#)
    }

    func testWriteStringEscapesWhatRFC8259Requires() {
        func written(_ s: String) -> String { var out = ""; JSONValue.writeString(s, to: &out); return out }
        XCTAssertEqual(written("plain"), #""plain""#)
        XCTAssertEqual(written("q\"b\\"), #""q\"b\\""#)
        XCTAssertEqual(written("\n\r\t"), #""\n\r\t""#)
        XCTAssertEqual(written("\u{0}\u{1}\u{1F}"), #""\u0000\u0001\u001f""#)
        XCTAssertEqual(written("\u{8}\u{C}"), #""\u0008\u000c""#)
        XCTAssertEqual(written("é😀/\u{7F}"), "\"é😀/\u{7F}\"")
        for s in ["", "a\u{0}b", "\u{1}\u{2}\u{1F}", "\"\\\"", "😀\n", "\u{2028}\u{2029}"] {
            XCTAssertEqual(try JSONValue.parse(Array(written(s).utf8)), .string(s), s.debugDescription)
        }
    }

    func testCompactRemovesOnlyInsignificantWhitespace() {
        func compact(_ s: String) -> String { String(decoding: JSONText.compact(Array(s.utf8)), as: UTF8.self) }
        XCTAssertEqual(compact(" { \"a\" : [ 1 , 2 ] ,\n\t\"b\" : \"x y\" }\r\n"), #"{"a":[1,2],"b":"x y"}"#)
        XCTAssertEqual(compact(#"{"a" : "x \" y" , "b":1}"#), #"{"a":"x \" y","b":1}"#)
        XCTAssertEqual(compact(#"{"a" : "\\" , "b" : "\\\"" }"#), #"{"a":"\\","b":"\\\""}"#)
        XCTAssertEqual(compact(#"[ " " , "  " ]"#), #"[" ","  "]"#)
        XCTAssertEqual(compact("{}"), "{}")
        // Compacting keeps every byte inside strings, so the value is unchanged.
        let doc = #" { "s" : "a \" b \\ c \n d" , "n" : [ 1 , { "k" : " v " } ] } "#
        XCTAssertEqual(try? JSONValue.parse(JSONText.compact(Array(doc.utf8))), try? JSONValue.parse(Array(doc.utf8)))
    }
}
