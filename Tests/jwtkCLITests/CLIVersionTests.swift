import Foundation
import XCTest

/// `jwtk --version` prints the release's version: the top-level VERSION file's (which
/// scripts/version-check.sh keeps equal to jwtk.h's JWTK_VERSION, the CLI's source), and nothing else.
final class CLIVersionTests: XCTestCase {
    func testVersionIsTheReleaseVersion() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let version = try String(contentsOf: repository.appendingPathComponent("VERSION"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let run = try CLIHarness.run(["--version"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(String(decoding: run.stdout, as: UTF8.self), version + "\n")
        XCTAssertEqual(run.stderr, "")
    }
}
