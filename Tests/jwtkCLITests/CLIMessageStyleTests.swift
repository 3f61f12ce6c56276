import Foundation
import XCTest

/// Every error jwtk reports has one form, whoever found it: `jwtk: MESSAGE` on stderr, and for a
/// usage error one more line naming the help to read (never ArgumentParser's "Error: " and usage
/// block); configuration JSON errors say where (line and column).
final class CLIMessageStyleTests: XCTestCase {
    typealias F = CLIFixtures

    func assertStyle(_ run: CLIRun, usage: Bool, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(run.status, 2, run.stderr, file: file, line: line)
        let lines = run.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        XCTAssertFalse(lines.isEmpty, "a message", file: file, line: line)
        for text in lines {
            XCTAssertTrue(
                text.hasPrefix("jwtk: "), "every line starts with \"jwtk: \": \(run.stderr)", file: file, line: line)
        }
        XCTAssertFalse(run.stderr.contains("Error: "), run.stderr, file: file, line: line)
        XCTAssertFalse(
            run.stderr.contains("USAGE:") || run.stderr.contains("Usage:"), run.stderr, file: file, line: line)
        XCTAssertEqual(lines.last?.hasPrefix("jwtk: see '"), usage, run.stderr, file: file, line: line)
    }

    func testUsageErrors() throws {
        let token = try F.token("valid_RS256")
        let bogus = try CLIHarness.run(F.verifyArgs() + ["--bogus", token])
        assertStyle(bogus, usage: true)
        XCTAssertEqual(bogus.stderr, "jwtk: Unknown option '--bogus'\njwtk: see 'jwtk verify --help'\n")
        assertStyle(try CLIHarness.run(["verify", token]), usage: true)
        assertStyle(try CLIHarness.run(F.verifyArgs() + ["--alg", "HS1", token]), usage: false)
        let unknown = try CLIHarness.run(["frobnicate"])
        assertStyle(unknown, usage: true)
        XCTAssertTrue(unknown.stderr.hasSuffix("jwtk: see 'jwtk --help'\n"), unknown.stderr)
    }

    func testConfigurationErrors() throws {
        let token = try F.token("valid_RS256")
        let path = "/nonexistent-\(UUID().uuidString)/keys.json"
        assertStyle(try CLIHarness.run(["verify", "--jwks", path, token]), usage: false)
        assertStyle(try CLIHarness.run(["jwks", path]), usage: false)
    }

    /// A trailing comma in an --issuer-config file: the line and column of what the parser met.
    func testIssuerConfigJSONErrorSaysWhere() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("jwtk-ic-\(UUID().uuidString).json")
        try Data("{\"issuers\": [\n  {\"issuer\": \"i\", \"jwks_url\": \"https://i.test/k\",},\n]}\n".utf8).write(
            to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try CLIHarness.run(["verify", "--issuer-config", file.path, "x.y.z"])
        assertStyle(run, usage: false)
        XCTAssertEqual(run.stderr, "jwtk: \(file.path): not valid JSON: expected member name at line 2, column 50\n")
    }
}
