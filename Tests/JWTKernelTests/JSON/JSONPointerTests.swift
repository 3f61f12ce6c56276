import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

/// RFC 6901 pointers over validated documents, by span: syntax, escapes, array indices, and the
/// examples of RFC 6901 section 5.
final class JSONPointerTests: XCTestCase {
    /// The text `pointer` names in `json` (a string's content between its quotes), or nil when absent.
    func text(_ pointer: String, in json: String, file: StaticString = #filePath, line: UInt = #line) -> String? {
        var doc = Array(json.utf8)
        var p = pointer
        return p.withUTF8 { path in
            XCTAssertNil(JSONPointer.validate(UnsafeRawBufferPointer(path)), pointer, file: file, line: line)
            return doc.withUnsafeMutableBytes { raw in
                var parser = JSONParser(UnsafeRawBufferPointer(raw))
                let valid = (try? parser.parseDocument()) != nil
                XCTAssertTrue(valid, "not JSON: \(json)", file: file, line: line)
                guard let span = JSONPointer.resolve(UnsafeRawBufferPointer(path), in: UnsafeRawBufferPointer(raw))
                else { return nil }
                return String(decoding: raw[span.start..<span.end], as: UTF8.self)
            }
        }
    }

    func syntax(_ pointer: String) -> JSONPointer.SyntaxError? {
        var p = pointer
        return p.withUTF8 { JSONPointer.validate(UnsafeRawBufferPointer($0)) }
    }

    /// RFC 6901 section 5, the JSON String Representation column.
    func testRFC6901Examples() {
        let doc = #"""
            {"foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\j": 5, "k\"l": 6, " ": 7, "m~n": 8}
            """#
        XCTAssertEqual(text("", in: doc)?.first, "{")
        XCTAssertEqual(text("/foo", in: doc), #"["bar", "baz"]"#)
        XCTAssertEqual(text("/foo/0", in: doc), "bar")
        XCTAssertEqual(text("/", in: doc), "0")
        XCTAssertEqual(text("/a~1b", in: doc), "1")
        XCTAssertEqual(text("/c%d", in: doc), "2")
        XCTAssertEqual(text("/e^f", in: doc), "3")
        XCTAssertEqual(text("/g|h", in: doc), "4")
        XCTAssertEqual(text(#"/i\j"#, in: doc), "5")
        XCTAssertEqual(text(#"/k"l"#, in: doc), "6")
        XCTAssertEqual(text("/ ", in: doc), "7")
        XCTAssertEqual(text("/m~0n", in: doc), "8")
    }

    func testNamesAreComparedDecoded() {
        // A member name written with JSON escapes matches its decoded bytes, RFC 6901-escaped or not.
        let doc = #"{"https:\/\/example.com\/roles":["a"],"caf\u00e9":1,"t\u007e":2}"#
        XCTAssertEqual(text("/https:~1~1example.com~1roles/0", in: doc), "a")
        XCTAssertEqual(text("/café", in: doc), "1")
        XCTAssertEqual(text("/t~0", in: doc), "2")
        XCTAssertNil(text("/t~1", in: doc))
        XCTAssertNil(text("/t", in: doc))
        XCTAssertNil(text("/t~0~0", in: doc))
        // "~01" is "~" then "1", never "/": escapes are resolved once, left to right.
        XCTAssertEqual(text("/~01", in: #"{"~1":"yes","/":"no"}"#), "yes")
    }

    func testArrayIndices() {
        let doc = #"{"a":[10,[20,21],{"0":"obj"}],"m":{"0":"zero","01":"lead","-":"dash"}}"#
        XCTAssertEqual(text("/a/0", in: doc), "10")
        XCTAssertEqual(text("/a/1/1", in: doc), "21")
        XCTAssertEqual(text("/a/2/0", in: doc), "obj")
        for absent in [
            "/a/3", "/a/01", "/a/00", "/a/-", "/a/", "/a/+1", "/a/1.0", "/a/ 1", "/a/-1",
            "/a/99999999999999999999", "/a/0/x", "/a/~00",
        ] {
            XCTAssertNil(text(absent, in: doc), absent)
        }
        // On an object the same tokens are member names.
        XCTAssertEqual(text("/m/0", in: doc), "zero")
        XCTAssertEqual(text("/m/01", in: doc), "lead")
        XCTAssertEqual(text("/m/-", in: doc), "dash")
    }

    func testStepsIntoScalarsAreAbsent() {
        let doc = #"{"s":"text","n":1,"t":true,"z":null}"#
        for p in ["/s/0", "/n/x", "/t/0", "/z/z", "/nope", "/s/"] { XCTAssertNil(text(p, in: doc), p) }
    }

    func testRootsWithWhitespaceAndOfOtherKinds() {
        XCTAssertEqual(text("/a", in: " \n{\"a\":1}\t "), "1")
        XCTAssertEqual(text("", in: " {\"a\":1} "), #"{"a":1}"#)
        XCTAssertEqual(text("/1", in: " [5, 6] "), "6")
        XCTAssertEqual(text("", in: #" "str" "#), "str")
        XCTAssertNil(text("/0", in: " 42 "))
    }

    /// Every value of a document, reached by the pointer built from its path in the `JSONValue` tree (names
    /// RFC 6901-escaped), is that subtree: the span walk and the tree agree everywhere.
    func testEveryPathOfADocumentAgreesWithTheTree() throws {
        let json = #"""
            {"a":{"b/c":[1,{"~":"t","~1":null,"":[[],{}]}],"d\u0000e":"x","f\"g":true},"https:\/\/x.example\/r":["u","v"],
             "n":-0.5e-3,"caf\u00e9":{"0":{"01":[false]}},"s":"a\u0000b"}
            """#
        let tree = try JSONValue.parse(Array(json.utf8))
        var doc = Array(json.utf8)
        var checked = 0
        func visit(_ value: JSONValue, _ pointer: String) {
            var p = pointer
            let got: JSONValue? = p.withUTF8 { path in
                doc.withUnsafeMutableBytes { raw in
                    let raw = UnsafeRawBufferPointer(raw)
                    guard let span = JSONPointer.resolve(UnsafeRawBufferPointer(path), in: raw) else { return nil }
                    return try? JSONValue.build(span, raw, maxDepth: JSONParser.defaultMaxDepth)
                }
            }
            XCTAssertEqual(got, value, pointer)
            checked += 1
            switch value {
            case .object(let members):
                for m in members {
                    let token = m.name.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(
                        of: "/", with: "~1")
                    visit(m.value, pointer + "/" + token)
                }
            case .array(let elements):
                for (i, e) in elements.enumerated() { visit(e, pointer + "/\(i)") }
            default: break
            }
        }
        visit(tree, "")
        XCTAssertEqual(checked, 21, "every value of the document visited")
    }

    func testSyntax() {
        for ok in ["", "/", "//", "/a~0~1", "/~0", "/a b", "/é"] { XCTAssertNil(syntax(ok), ok) }
        for bad in ["a", " /a", "#/a", "~0"] { XCTAssertEqual(syntax(bad), .noLeadingSlash, bad) }
        for bad in ["/~", "/a~", "/~2", "/a~/b", "/~~0", "/~a"] { XCTAssertEqual(syntax(bad), .badEscape, bad) }
    }
}
