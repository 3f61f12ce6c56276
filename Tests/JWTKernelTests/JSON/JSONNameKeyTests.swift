import XCTest

@_spi(Internals) @testable import JWTKernel

/// Name keys: exact for short names (so the hot path matches registered names
/// with one integer compare), never exact for long ones, equal for every
/// spelling of one decoded string.
final class JSONNameKeyTests: XCTestCase {
    func testRegisteredLiteralsAreTheKeysOfTheirNames() {
        let expected: [(UInt64, StaticString)] = [
            (JSONNameKey.iss, "iss"), (JSONNameKey.sub, "sub"), (JSONNameKey.aud, "aud"), (JSONNameKey.exp, "exp"),
            (JSONNameKey.nbf, "nbf"), (JSONNameKey.iat, "iat"), (JSONNameKey.jti, "jti"), (JSONNameKey.nonce, "nonce"),
            (JSONNameKey.azp, "azp"), (JSONNameKey.alg, "alg"), (JSONNameKey.kid, "kid"), (JSONNameKey.typ, "typ"),
            (JSONNameKey.crit, "crit"), (JSONNameKey.b64, "b64"),
        ]
        for (literal, name) in expected {
            XCTAssertEqual(literal, JSONNameKey(name).value, "\(name)")
            XCTAssertEqual(literal, JSONNameKey(bytes: Array(name.description.utf8)).value, "\(name)")
        }
    }

    func keys(_ json: String) throws -> [JSONNameKey] {
        let bytes = Array(json.utf8)
        return try bytes.withUnsafeBytes { raw in
            var parser = JSONParser(raw)
            var out: [JSONNameKey] = []
            try parser.forEachTopLevelMemberWithKey { (name, key, _) throws(JWTError) in
                XCTAssertEqual(key, JSONNameKey(name, in: raw.baseAddress!.assumingMemoryBound(to: UInt8.self)))
                out.append(key)
            }
            return out
        }
    }

    func testEverySpellingOfANameHasOneKey() throws {
        let bytes = Array(#"["exp","\u0065xp","e\u0078\u0070","email_verified","email_verifie\u0064"]"#.utf8)
        try bytes.withUnsafeBytes { raw in
            let base = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var parser = JSONParser(raw)
            let array = try parser.parseDocument()
            var elements = JSONParser(bytes: base, count: array.end, at: array.start, maxDepth: 32)
            var k: [JSONNameKey] = []
            try elements.parseArrayElements(depth: 1) { (span) throws(JWTError) in k.append(JSONNameKey(span, in: base))
            }
            XCTAssertEqual(k.map(\.value), [JSONNameKey.exp, JSONNameKey.exp, JSONNameKey.exp, k[3].value, k[3].value])
            XCTAssertFalse(k[3].isExact)
        }
    }

    func testKeysOfDistinctNames() throws {
        let k = try keys(#"{"exp":1,"x":0,"\u0065xq":2,"email_verified":1,"email_verifie\u0065":2}"#)
        XCTAssertEqual(k[0].value, JSONNameKey.exp)
        XCTAssertEqual(k[2], JSONNameKey(bytes: Array("exq".utf8)))
        XCTAssertFalse(k[3].isExact)
        XCTAssertEqual(k[3], JSONNameKey(bytes: Array("email_verified".utf8)))
        XCTAssertEqual(k[4], JSONNameKey(bytes: Array("email_verifiee".utf8)))
        XCTAssertNotEqual(k[3], k[4])
    }

    func testShortAndLongKeysNeverCollide() {
        // Long keys carry the top bit; exact keys carry a length of at most 7 there.
        for length in 0...7 { XCTAssertTrue(JSONNameKey(bytes: Array(repeating: 0xFF, count: length)).isExact) }
        for length in 8...40 { XCTAssertFalse(JSONNameKey(bytes: Array(repeating: 0x65, count: length)).isExact) }
    }

    func testDuplicateNamesAreFoundWhateverTheirSpelling() {
        for json in [
            #"{"a":1,"a":2}"#, #"{"a":1,"\u0061":2}"#, #"{"email_verified":1,"email_verifie\u0064":2}"#,
            #"{"b":0,"c":0,"d":0,"e":0,"f":0,"g":0,"h":0,"i":0,"j":0,"k":0,"l":0,"m":0,"n":0,"o":0,"p":0,"q":0,"r":0,"s":0,"t":0,"u":0,"v":0,"w":0,"x":0,"y":0,"z":0,"A":0,"B":0,"C":0,"D":0,"E":0,"F":0,"G":0,"H":0,"b":1}"#,
        ] {
            XCTAssertThrowsError(try keys(json), json)
        }
        XCTAssertNoThrow(try keys(#"{"email_verified":1,"email_verifiee":2,"a":1,"b":2}"#))
    }
}

/// Objects far larger than the inline name buffer: duplicates still found (their cost is
/// linear, shown by the benchmark's size sweep, not timed here).
final class LargeObjectTests: XCTestCase {
    func parse(_ json: String) -> Bool {
        let bytes = Array(json.utf8)
        return bytes.withUnsafeBytes { raw in
            var parser = JSONParser(raw)
            return (try? parser.parseDocument()) != nil
        }
    }

    func testDuplicatesAmongThousandsOfMembersAreFound() {
        let names = (0..<3000).map { "m\($0)" } + (0..<50).map { "long_member_name_\($0)_padding" }
        let unique = "{" + names.map { "\"\($0)\":0" }.joined(separator: ",") + "}"
        XCTAssertTrue(parse(unique))
        for dup in ["m0", "m31", "m32", "m2999", "long_member_name_7_padding", "long_member_name_49_p\\u0061dding"] {
            XCTAssertFalse(parse(String(unique.dropLast()) + ",\"\(dup)\":1}"), dup)
        }
    }
}
