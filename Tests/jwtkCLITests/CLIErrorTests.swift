import Foundation
import XCTest

/// Exit status 2 for usage and configuration errors, with a message on stderr
/// that names what is wrong, and nothing on stdout.
final class CLIErrorTests: XCTestCase {
    typealias F = CLIFixtures

    func assertUsageError(
        _ run: CLIRun, mentioning needles: [String] = [],
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(
            run.status, 2, "exit status for \(run.args.joined(separator: " ")); stderr: \(run.stderr)", file: file,
            line: line)
        XCTAssertEqual(run.lines, [], "no result lines on a configuration error", file: file, line: line)
        XCTAssertFalse(run.stderr.isEmpty, "a message on stderr", file: file, line: line)
        for needle in needles {
            XCTAssertTrue(run.stderr.contains(needle), "stderr names \(needle): \(run.stderr)", file: file, line: line)
        }
    }

    func token() throws -> String { try F.token("valid_RS256") }

    func testUnknownAlg() throws {
        for alg in ["HS1", "none", "hs256", "RSA-OAEP", ""] {
            let run = try CLIHarness.run(F.verifyArgs() + ["--alg", alg, try token()])
            assertUsageError(run, mentioning: alg.isEmpty ? [] : [alg])
        }
        // An unknown one among known ones is still an error.
        assertUsageError(
            try CLIHarness.run(F.verifyArgs() + ["--alg", "RS256", "--alg", "XS256", try token()]),
            mentioning: ["XS256"])
    }

    func testUnknownAlgWithTokensOnStdin() throws {
        assertUsageError(
            try CLIHarness.run(F.verifyArgs() + ["--alg", "HS1"], stdin: Data(try token().utf8)), mentioning: ["HS1"])
    }

    func testMissingKeySetFile() throws {
        let path = "/nonexistent-\(UUID().uuidString)/keys.json"
        assertUsageError(try CLIHarness.run(["verify", "--jwks", path, try token()]), mentioning: [path])
        // Also when it is the second of two files.
        assertUsageError(
            try CLIHarness.run(["verify", "--jwks", F.publicJWKS, "--jwks", path, try token()]), mentioning: [path])
    }

    func testKeySetFileIsADirectory() throws {
        let dir = URL(fileURLWithPath: F.keyFile("pem-map.json")).deletingLastPathComponent().path
        assertUsageError(try CLIHarness.run(["verify", "--jwks", dir, try token()]), mentioning: [dir])
    }

    func testKeySetThatIsNotJSON() throws {
        assertUsageError(
            try CLIHarness.run(["verify", "--jwks", F.keyFile("not-json.json"), try token()]),
            mentioning: ["not-json.json"])
    }

    func testJSONThatIsNotAKeySet() throws {
        assertUsageError(
            try CLIHarness.run(["verify", "--jwks", F.keyFile("not-a-key-set.json"), try token()]),
            mentioning: ["not-a-key-set.json"])
    }

    func testKeySetWhereEveryKeyIsBad() throws {
        let run = try CLIHarness.run(["verify", "--jwks", F.keyFile("all-bad-keys.json"), try token()])
        assertUsageError(run, mentioning: ["all-bad-keys.json", "weak-rsa-1024", "short-hmac", "off-curve", "enc-key"])
    }

    func testEmptyKeySet() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jwtk-empty-\(UUID().uuidString).json")
        try Data(#"{"keys":[]}"#.utf8).write(to: dir)
        defer { try? FileManager.default.removeItem(at: dir) }
        assertUsageError(
            try CLIHarness.run(["verify", "--jwks", dir.path, try token()]), mentioning: [dir.lastPathComponent])
    }

    func testJWKSIsRequired() throws {
        assertUsageError(try CLIHarness.run(["verify", try token()]), mentioning: ["--jwks"])
        assertUsageError(try CLIHarness.run(["verify"], stdin: Data(try token().utf8)))
    }

    func testBadOptionValues() throws {
        let base = F.verifyArgs()
        assertUsageError(try CLIHarness.run(base + ["--leeway", "abc", try token()]))
        assertUsageError(try CLIHarness.run(base + ["--leeway=-1", try token()]))
        assertUsageError(try CLIHarness.run(base + ["--now", "yesterday", try token()]))
        assertUsageError(try CLIHarness.run(base + ["--max-token-size", "0", try token()]))
        assertUsageError(try CLIHarness.run(base + ["--leeway"]))
    }

    func testUnknownOptionOrSubcommand() throws {
        assertUsageError(try CLIHarness.run(F.verifyArgs() + ["--bogus", try token()]))
        assertUsageError(try CLIHarness.run(["frobnicate"]))
    }

    func testHelpIsNotAnError() throws {
        let run = try CLIHarness.run(["verify", "--help"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let text = String(decoding: run.stdout, as: UTF8.self) + run.stderr
        for option in ["--jwks", "--iss", "--aud", "--alg", "--leeway", "--now", "--require", "--nonce", "--typ"] {
            XCTAssertTrue(text.contains(option), "help mentions \(option)")
        }
    }

    func testPrivateKeyPEMIsRefused() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jwtk-private-\(UUID().uuidString).pem")
        try Data("-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n-----END PRIVATE KEY-----\n".utf8).write(
            to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        assertUsageError(
            try CLIHarness.run(["verify", "--jwks", file.path, try token()]),
            mentioning: [file.lastPathComponent, "private key", "-pubout"])
    }
}
