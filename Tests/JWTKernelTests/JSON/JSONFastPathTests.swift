import XCTest

@_spi(Internals) @testable import JWTKernel

/// The JSON reader's fast paths against the straightforward code they stand in
/// for: the SSE2 plain-byte scan against a byte loop, short name keys from one
/// load against the byte-by-byte packing, and the member-name set against a
/// Swift `Set` of the decoded names. `FuzzJSON` runs the first and last on
/// arbitrary input as well.
final class JSONFastPathTests: XCTestCase {
    /// The bytes a string may hold without a decision: everything but `"`, `\`, controls and non-ASCII.
    private func isPlain(_ b: UInt8) -> Bool { b >= 0x20 && b < 0x80 && b != 0x22 && b != 0x5C }

    private func checkPlainPrefix(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        bytes.withUnsafeBytes { raw in
            let r = JSONParser.plainPrefixLength(raw)
            let first = bytes.firstIndex { !isPlain($0) } ?? bytes.count
            XCTAssertTrue(r <= first, "skipped a special byte: \(r) > \(first) in \(bytes)", file: file, line: line)
            // Exact at a special byte, or stopped short with under 16 bytes left for the caller's loop.
            XCTAssertTrue(
                r == first || (bytes.count - r < 16 && r % 16 == 0), "stopped at \(r), first special at \(first)",
                file: file, line: line)
        }
    }

    func testPlainPrefixAgreesWithAByteLoopAtEveryPositionAndLength() {
        let specials: [UInt8] = [0x22, 0x5C, 0x00, 0x09, 0x1F, 0x80, 0xC3, 0xFF]
        let plainEdges: [UInt8] = [0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7E, 0x7F]
        for length in 0...70 {
            let plain = (0..<length).map { plainEdges[$0 % plainEdges.count] }
            checkPlainPrefix(plain)
            for position in 0..<length {
                for s in specials {
                    var bytes = plain
                    bytes[position] = s
                    checkPlainPrefix(bytes)
                    // A second special byte later must not move the answer.
                    if position + 17 < length { bytes[position + 17] = 0x22 }
                    checkPlainPrefix(bytes)
                }
            }
        }
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let bytes = (0..<Int.random(in: 0...100, using: &rng)).map { _ in
                Int.random(in: 0..<40, using: &rng) == 0
                    ? UInt8.random(in: 0...255, using: &rng) : UInt8.random(in: 0x20...0x7E, using: &rng)
            }
            checkPlainPrefix(bytes)
        }
    }

    func testShortNameKeysFromOneLoadEqualTheByteLoop() {
        // Names of 0 to 7 bytes, with the buffer ending right after them or further on, so that the
        // one-load path is taken where it may be and refused where the 8-byte window would leave the buffer.
        for n in 0...7 {
            for tail in 0...9 {
                let name = (0..<n).map { UInt8(0x61 + $0) }
                let bytes =
                    [UInt8(ascii: "\"")] + name + [UInt8(ascii: "\"")] + Array(repeating: UInt8(0xFF), count: tail)
                bytes.withUnsafeBytes { raw in
                    let base = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                    let span = JSONSpan(start: 1, end: 1 + n, kind: .string)
                    let loop = JSONNameKey(span, in: base)
                    for readable in (1 + n)...bytes.count {
                        XCTAssertEqual(
                            JSONNameKey(span, in: base, readable: readable), loop, "n \(n) readable \(readable)")
                    }
                    XCTAssertEqual(loop, JSONNameKey(bytes: name))
                }
            }
        }
    }

    /// Objects of up to 80 members (past the 32 kept inline), names drawn from a pool that has
    /// escaped spellings of one name and long names that share their key inputs (first and last
    /// 8 bytes, length), so every branch of the set is taken: accepted exactly when the decoded
    /// names are distinct.
    func testMemberNameSetAgreesWithASetOfDecodedNames() throws {
        let pool: [(text: String, decoded: String)] = [
            ("a", "a"), ("\\u0061", "a"), ("exp", "exp"), ("e\\u0078p", "exp"), ("", ""),
            ("abcdefg", "abcdefg"), ("abcdefgh", "abcdefgh"), ("abcdefg\\u0068", "abcdefgh"),
            ("prefix__X__suffix_", "prefix__X__suffix_"), ("prefix__Y__suffix_", "prefix__Y__suffix_"),
            ("prefix__\\u0059__suffix_", "prefix__Y__suffix_"), ("\\u00e9t\\u00e9", "été"), ("été", "été"),
        ]
        var rng = SystemRandomNumberGenerator()
        for round in 0..<1500 {
            let count = round < 200 ? round % 81 : Int.random(in: 0...80, using: &rng)
            var texts: [String] = []
            var decoded: [String] = []
            for i in 0..<count {
                if Int.random(in: 0..<4, using: &rng) == 0 {
                    let pick = pool[Int.random(in: 0..<pool.count, using: &rng)]
                    texts.append(pick.text)
                    decoded.append(pick.decoded)
                } else {
                    // Distinct filler names of varied lengths (short and long keys).
                    let name = "m\(i)" + String(repeating: "x", count: i % 11)
                    texts.append(name)
                    decoded.append(name)
                }
            }
            let json = "{" + texts.enumerated().map { "\"\($1)\":\($0)" }.joined(separator: ",") + "}"
            let distinct = Set(decoded).count == decoded.count
            let accepted = Array(json.utf8).withUnsafeBytes { raw in
                var parser = JSONParser(raw)
                return (try? parser.parseDocument()) != nil
            }
            XCTAssertEqual(accepted, distinct, json)
        }
    }
}
