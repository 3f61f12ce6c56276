import Foundation
import XCTest

/// PEM keys as they are published: after a newline, whitespace, a UTF-8 byte order mark or
/// explanatory text (RFC 7468 section 2 allows text before `-----BEGIN`), in a PEM file and in
/// a `{kid: PEM}` map. `verify --jwks` and `jwtk jwks` read files with one reader, so both
/// accept and refuse the same files.
final class CLIPEMShapeTests: XCTestCase, VerifyRunning {
    static let prefixes: [(String, [UInt8])] = [
        ("newline", Array("\n".utf8)), ("whitespace", Array(" \r\n\t ".utf8)), ("BOM", [0xEF, 0xBB, 0xBF]),
        ("BOM and newline", [0xEF, 0xBB, 0xBF, 0x0A]), ("text", Array("Public key of rsa-1, see RFC 7468:\n".utf8)),
    ]

    var files: [URL] = []
    override func tearDown() { for file in files { try? FileManager.default.removeItem(at: file) } }

    func write(_ bytes: [UInt8], _ ext: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("jwtk-pem-\(UUID().uuidString).\(ext)")
        try Data(bytes).write(to: url)
        files.append(url)
        return url.path
    }

    func pem() throws -> String { try String(contentsOfFile: F.keyFile("rsa-1.pub.pem"), encoding: .utf8) }

    func testPEMFilesWithLeadingText() throws {
        let token = try F.token("valid_RS256_no_kid_single_fitting_key")
        for (name, prefix) in Self.prefixes {
            let path = try write(prefix + Array(try pem().utf8), "pem")
            assertCodes(try verify(jwks: [path], tokens: [token]), [nil])
            let listing = try CLIHarness.run(["jwks", path])
            XCTAssertEqual(listing.status, 0, "\(name): \(listing.stderr)")
            XCTAssertEqual(listing.objects().first?["kty"] as? String, "RSA", name)
        }
    }

    func testPEMMapValuesWithLeadingText() throws {
        let tokens = [try F.token("valid_RS256"), try F.token("valid_PS256")]
        let value = try pem().replacingOccurrences(of: "\n", with: "\\n")
        for (name, prefix) in Self.prefixes {
            let escaped = String(decoding: prefix, as: UTF8.self).unicodeScalars.map { s in
                s.isASCII && s.value >= 0x20 ? String(s) : String(format: "\\u%04x", s.value)
            }.joined()
            let path = try write(Array(#"{"rsa-1": "\#(escaped)\#(value)"}"#.utf8), "json")
            assertCodes(try verify(jwks: [path], tokens: tokens), [nil, nil])
            let listing = try CLIHarness.run(["jwks", path])
            XCTAssertEqual(listing.status, 0, "\(name): \(listing.stderr)")
            XCTAssertEqual(listing.objects().first?["kid"] as? String, "rsa-1", name)
        }
    }

    /// OpenSSL reads only a file's first block: a second one (a chain, a private key) is refused, not dropped.
    func testTwoPEMBlocksAreRefusedByBothCommands() throws {
        let path = try write(Array((try pem() + pem()).utf8), "pem")
        let run = try verify(jwks: [path], tokens: [try F.token("valid_RS256")])
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.stderr.contains("2 blocks"), run.stderr)
        let listing = try CLIHarness.run(["jwks", path])
        XCTAssertEqual(listing.status, 1, "no usable key")
        XCTAssertTrue(
            (listing.objects().first?["refused"] as? String)?.contains("2 blocks") == true, "\(listing.lines)")
    }

    func testAFileThatIsNeitherJSONNorPEMIsAnErrorInBothCommands() throws {
        let path = try write(Array("just some text\n".utf8), "txt")
        XCTAssertEqual(try verify(jwks: [path], tokens: ["x.y.z"]).status, 2)
        XCTAssertEqual(try CLIHarness.run(["jwks", path]).status, 2)
    }
}
