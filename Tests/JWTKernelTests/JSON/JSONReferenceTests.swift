import XCTest

@_spi(Internals) @testable import JWTKernel
@_spi(Internals) import JWTKernelTestOracles

/// The fast reader (`JSONParser`: 16-byte block masks, the inlined member loop,
/// name keys, one-load literals) against `JSONReferenceParser`, which reads one
/// byte at a time: the same verdict and the same spans on inputs built around
/// the 8/16/32/64-byte block edges (escapes split across blocks, non-ASCII at
/// a block's end, strings ending exactly on an edge), deep nesting, and random
/// mutations of a real claims set. `RegisteredClaims.read` is checked against
/// a plain reading of the reference's members. `FuzzJSON` runs the parser
/// comparison on arbitrary input.
final class JSONReferenceTests: XCTestCase {
    private func check(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        bytes.withUnsafeBytes { raw in
            var fast = JSONParser(raw)
            var ref = JSONReferenceParser(raw)
            let doc = try? fast.parseDocument()
            XCTAssertEqual(doc, ref.parseDocument(), "parseDocument: \(show(bytes))", file: file, line: line)
            var members: [JSONReferenceParser.Member] = []
            var walk = JSONParser(raw)
            let ok =
                (try? walk.forEachTopLevelMember { (n, v) throws(JWTError) in members.append(.init(name: n, value: v)) })
                != nil
            let expected = ref.topLevelMembers()
            XCTAssertEqual(ok ? members : nil, expected, "members: \(show(bytes))", file: file, line: line)
            checkClaims(raw, members: expected, file: file, line: line)
        }
    }

    private func show(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self).debugDescription }

    /// `RegisteredClaims.read` against the registered-claim rules applied to the reference's members.
    private func checkClaims(
        _ raw: UnsafeRawBufferPointer, members: [JSONReferenceParser.Member]?, file: StaticString, line: UInt
    ) {
        let fast = Result { () throws(JWTError) in try RegisteredClaims.read(raw, required: [], requiredNames: []) }
        guard let members else {
            if case .success = fast { XCTFail("claims accepted, reference refuses", file: file, line: line) }
            return
        }
        let base = raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
        var spans: [String: JSONSpan] = [:]
        var typeError = false
        for m in members {
            let name = JSONString.string(m.name, in: base.assumingMemoryBound(to: UInt8.self))
            let k = m.value.kind
            switch name {
            case "exp", "nbf", "iat":
                if k != .number {
                    typeError = true
                } else {
                    let text = String(decoding: raw[m.value.start..<m.value.end], as: UTF8.self)
                    if !(Double(text)?.isFinite ?? false) { typeError = true }
                }
            case "iss", "sub", "jti", "nonce", "azp": if k != .string { typeError = true }
            case "aud":
                if k == .array {
                    if arrayKinds(raw, m.value).contains(where: { $0 != .string }) { typeError = true }
                } else if k != .string {
                    typeError = true
                }
            default: break
            }
            spans[name] = m.value
        }
        switch fast {
        case .failure(let e):
            XCTAssertTrue(
                typeError, "claims refused (\(e)) but the reference finds no type error", file: file, line: line)
            XCTAssertEqual(e.code, .badClaimType, file: file, line: line)
        case .success(let c):
            XCTAssertFalse(typeError, "claims accepted with a type error", file: file, line: line)
            XCTAssertEqual(c.iss, spans["iss"], file: file, line: line)
            XCTAssertEqual(c.sub, spans["sub"], file: file, line: line)
            XCTAssertEqual(c.aud, spans["aud"], file: file, line: line)
            XCTAssertEqual(c.jti, spans["jti"], file: file, line: line)
            XCTAssertEqual(c.nonce, spans["nonce"], file: file, line: line)
            XCTAssertEqual(c.azp, spans["azp"], file: file, line: line)
            for (name, value) in [("exp", c.exp), ("nbf", c.nbf), ("iat", c.iat)] {
                let expected = spans[name].map { Double(String(decoding: raw[$0.start..<$0.end], as: UTF8.self))! }
                XCTAssertEqual(value, expected, name, file: file, line: line)
            }
        }
    }

    /// The kinds of the elements of a validated array span, read with the reference parser.
    private func arrayKinds(_ raw: UnsafeRawBufferPointer, _ array: JSONSpan) -> [JSONKind] {
        // {"0":e0,"1":e1,...} has the array's elements as member values: rebuild it from the
        // array text by reading elements one at a time with the reference parser.
        let text = Array(raw[array.start..<array.end])
        var kinds: [JSONKind] = []
        var depth = 0, inString = false, escape = false, elementStart = 1
        func flush(_ end: Int) {
            let element = Array(text[elementStart..<end])
            element.withUnsafeBytes { e in
                var p = JSONReferenceParser(e)
                if let v = p.parseDocument() { kinds.append(v.kind) }
            }
        }
        for (k, b) in text.enumerated() {
            if inString {
                if escape { escape = false } else if b == 0x5C { escape = true } else if b == 0x22 { inString = false }
                continue
            }
            switch b {
            case 0x22: inString = true
            case 0x5B, 0x7B: depth += 1
            case 0x5D, 0x7D:
                depth -= 1
                if depth == 0, k > elementStart,
                    text[1..<k].contains(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) })
                {
                    flush(k)
                }
            case 0x2C where depth == 1:
                flush(k)
                elementStart = k + 1
            default: break
            }
        }
        return kinds
    }

    /// String contents that exercise every branch of the scan.
    private let pieces: [[UInt8]] = [
        Array("\\\"".utf8), Array("\\\\".utf8), Array("\\/".utf8), Array("\\n".utf8), Array("\\u0041".utf8),
        Array("\\u00e9".utf8), Array("\\ud83d\\ude00".utf8), Array("\\ud83d".utf8), Array("\\ude00".utf8),
        Array("\\ud83dx".utf8), Array("\\u12".utf8), Array("\\x".utf8), Array("é".utf8), Array("€".utf8),
        Array("😀".utf8), [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
        [0xC3], [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0x80], [0xFF], [0x00], [0x1F], [0x09], [0x7F],
    ]

    func testStringsAroundBlockEdgesAgreeWithTheReference() {
        for prefix in 0...66 {
            let pad = Array(repeating: UInt8(ascii: "a"), count: prefix)
            for piece in pieces {
                // As a value, as a name, and with the string ending at the buffer's very end.
                check(Array("{\"k\":\"".utf8) + pad + piece + Array("\"}".utf8))
                check(Array("{\"".utf8) + pad + piece + Array("\":1}".utf8))
                check(Array("\"".utf8) + pad + piece + Array("\"".utf8))
                check(Array("\"".utf8) + pad + piece)
                check(Array("{\"".utf8) + pad + piece + Array("x\":1,\"".utf8) + pad + piece + Array("x\":2}".utf8))
            }
            // Strings of every length ending exactly where the buffer does, and unterminated ones.
            check(Array("\"".utf8) + pad + Array("\"".utf8))
            check(Array("\"".utf8) + pad)
            check(Array("{\"exp\":1,\"".utf8) + pad + Array("\":true}".utf8))
        }
    }

    func testLiteralsNumbersAndWhitespaceAgreeWithTheReference() {
        let values = [
            "true", "false", "null", "tru", "fals", "nul", "trUe", "falsE", "nulll", "0", "-0", "01", "-", "1.", "1.5",
            "1e", "1e+", "1E-7", "-12.5e+3", "123456789012345", "1234567890123456789", "1e400", "[]", "[1,]", "[,]",
            "{}", "{\"a\":1,}", "[\"a\",\"b\"]", "[\"a\",1]", "\"x\"",
        ]
        for v in values {
            for ws in ["", " ", "\n\t\r "] {
                check(Array("{\(ws)\"exp\"\(ws):\(ws)\(v)\(ws)}".utf8))
                check(Array("{\"aud\":\(v),\"x\":\(v)}".utf8))
                check(Array("\(ws)\(v)\(ws)".utf8))
                check(Array(v.utf8))  // ending exactly at the buffer's end: no padding to over-read
            }
        }
    }

    /// Digit runs of every length up to 24 in each part of a number, cut by every kind of byte
    /// (the eight-byte digit test), and ending at the buffer's end.
    func testDigitRunsAgreeWithTheReference() {
        let cuts: [UInt8] = [0x2F, 0x3A, 0x40, 0x36, 0x20, 0x2C, 0x7D, 0x2E, 0x65, 0xFA, 0xFF, 0x00, 0x80]
        for n in 1...24 {
            let digits = (0..<n).map { UInt8(ascii: "1") + UInt8($0 % 9) }
            for shape in [digits, Array("-".utf8) + digits, Array("0.".utf8) + digits, Array("1e-".utf8) + digits] {
                check(shape)
                check(Array("{\"exp\":".utf8) + shape + Array("}".utf8))
                for cut in cuts {
                    check(shape + [cut] + digits)
                    check(Array("{\"iat\":".utf8) + shape + [cut] + Array("}".utf8))
                }
            }
        }
    }

    func testNestingAndDuplicatesAgreeWithTheReference() {
        for depth in 28...35 {
            check(Array((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8))
            check(
                Array(
                    ("{\"a\":" + String(repeating: "{\"b\":", count: depth - 1) + "1"
                        + String(repeating: "}", count: depth))
                        .utf8))
        }
        for doc in [
            "{\"a\":1,\"a\":2}", "{\"a\":1,\"\\u0061\":2}", "{\"x\":{\"a\":1,\"a\":2}}", "{\"x\":[{\"a\":1,\"a\":2}]}",
            "{\"exp\":1,\"e\\u0078p\":2}", "{\"abcdefghij\":1,\"abcdefghi\\u006a\":2}", "{\"\":1,\"\":2}",
        ] {
            check(Array(doc.utf8))
        }
    }

    /// The benchmark's Apple-style claims set and random byte mutations of it.
    func testMutatedClaimsAgreeWithTheReference() {
        let claims = Array(
            """
            {"iss":"https://appleid.apple.com","aud":"com.example.app","exp":4102444800,"iat":1767225600,\
            "sub":"001234.5f3b9c1e2d4a4b6c8e0f1a2b3c4d5e6f.0815","c_hash":"VpTQii5T_8rgwxA-Wtb2Bw",\
            "email":"x7k2m9q4p1@privaterelay.appleid.com","email_verified":true,"is_private_email":true,\
            "auth_time":1767225600,"nonce_supported":true,"real_user_status":2,"nonce":"78377b52",\
            "amr":["pwd","hwk","user"],"sid":"5a2f0c3e-8b7d","x_session_meta":"KawlwARvZzdLZB0SjGkw4Cj_FBXFL"}
            """.utf8)
        check(claims)
        let alphabet = Array("\"\\{}[],:0123456789-.eEtrufalsn u\u{7F}".utf8) + [0x00, 0x80, 0xC3, 0xA9, 0xED, 0xF0]
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            var doc = claims
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let at = Int.random(in: 0..<doc.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: doc[at] = alphabet.randomElement(using: &rng)!
                case 1: doc.insert(alphabet.randomElement(using: &rng)!, at: at)
                default: doc.remove(at: at)
                }
            }
            check(doc)
        }
    }
}
