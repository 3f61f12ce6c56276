import XCTest

@_spi(Internals) @testable import JWTKernel

/// The structural walk over validated documents reports exactly the spans the strict parser reports, for
/// every member and element, at every depth: whitespace everywhere, escapes (an escaped quote, a
/// backslash before the closing quote), every number form, brackets inside strings, empty containers.
final class ValidatedJSONWalkTests: XCTestCase {
    let documents =
        [
            #"{}"#, #"[]"#, #" { "a" : 1 , "b":[ ] ,"c":{ } } "#,
            #"{"s":"x\"}y","t":"\\","u":"\\\"","v":"]}[{,:","w":"\u0041"}"#,
            #"{"n":[0,-0,1.5,-2e10,3E+2,4e-3,12345678901234567890]}"#,
            #"{"l":[true,false,null,[true],{"x":null}]}"#,
            "{\n\t\"a\"\r\n:\n[\n1\n,\n\"2\"\n]\n}",
            #"{"deep":{"a":[{"b":[[],[{}],"]"]}],"c":"}"}}"#,
            #"{"https://example.com/roles":["admin"],"a~b":{"c/d":1},"":0}"#,
        ] + ValidatedJSONWalkTests.boundaryStrings

    /// Strings of 14-19 bytes, plain and with an escape at, before and after byte 16 (where the walk's byte
    /// loop hands over to memchr).
    static let boundaryStrings = (14...19).flatMap { n -> [String] in
        let plain = String(repeating: "a", count: n)
        return [
            "{\"\(plain)\":[\"\(plain)\"]}",
            "{\"k\":\"\(String(repeating: "b", count: n - 2))\\\"\"}",
            "{\"k\":[\"\(String(repeating: "c", count: n - 2))\\\\\",\"\(plain)\\u0041\"]}",
        ]
    }

    func testMembersAndElementsMatchTheParser() throws {
        for doc in documents {
            let bytes = Array(doc.utf8)
            try bytes.withUnsafeBytes { raw in
                var parser = JSONParser(raw)
                let root = try parser.parseDocument()
                try compare(root, raw)
            }
        }
    }

    private func compare(_ span: JSONSpan, _ raw: UnsafeRawBufferPointer) throws {
        let base = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var parser = JSONParser(bytes: base, count: span.end, at: span.start, maxDepth: 32)
        switch span.kind {
        case .object:
            var expected: [(JSONSpan, JSONSpan)] = []
            try parser.parseObjectMembers(depth: 1) { (name, _, value) throws(JWTError) in
                expected.append((name, value))
            }
            var got: [(JSONSpan, JSONSpan)] = []
            XCTAssertFalse(
                ValidatedJSONWalk.members(base, objectAt: span.start, end: span.end) {
                    got.append(($0, $1)); return false
                })
            XCTAssertEqual(got.map(\.0), expected.map(\.0))
            XCTAssertEqual(got.map(\.1), expected.map(\.1))
            for (_, value) in expected { try compare(value, raw) }
        case .array:
            var expected: [JSONSpan] = []
            try parser.parseArrayElements(depth: 1) { (value) throws(JWTError) in expected.append(value) }
            var got: [JSONSpan] = []
            XCTAssertFalse(
                ValidatedJSONWalk.elements(base, arrayAt: span.start, end: span.end) {
                    got.append($0); return false
                })
            XCTAssertEqual(got, expected)
            for value in expected { try compare(value, raw) }
        default: break
        }
    }

    func testTheWalkStopsAtTheHit() {
        let bytes = Array(#"{"a":1,"b":2,"c":3}"#.utf8)
        var seen = 0
        let hit = bytes.withUnsafeBufferPointer { b in
            ValidatedJSONWalk.members(b.baseAddress!, objectAt: 0, end: b.count) { _, _ in
                seen += 1; return seen == 2
            }
        }
        XCTAssertTrue(hit)
        XCTAssertEqual(seen, 2)
    }
}
