import Foundation
import XCTest

/// The `verify` call and result checks the verify test classes share.
protocol VerifyRunning {}

extension VerifyRunning {
    typealias F = CLIFixtures

    func verify(
        _ extra: [String] = [], jwks: [String]? = nil, policy: Bool = true, tokens: [String] = [], stdin: Data? = nil
    ) throws -> CLIRun {
        try CLIHarness.run(F.verifyArgs(jwks: jwks, policy: policy) + extra + tokens, stdin: stdin)
    }

    /// The codes per line (nil: valid), and exit 0 exactly when every token is valid unless `status` says otherwise.
    func assertCodes(
        _ run: CLIRun, _ expected: [String?], status: Int32? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(
            run.codes(file: file, line: line).map { $0 ?? "valid" }, expected.map { $0 ?? "valid" },
            "stderr: \(run.stderr)", file: file, line: line)
        let wanted = status ?? (expected.allSatisfy { $0 == nil } ? 0 : 1)
        XCTAssertEqual(run.status, wanted, "exit status; stderr: \(run.stderr)", file: file, line: line)
    }
}
