import Foundation

/// The attack suite's fixtures, shared with the library tests. They are read in
/// place, relative to this source file, so the ~300 KB of tokens are not
/// duplicated into a second test target.
enum AttackSuite {
    /// The generator's clock, issuer and audience (its default policy).
    static let now: Int64 = 1_700_000_000
    static let issuer = "https://issuer.example"
    static let audience = "api://attack-suite"

    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // jwtkCLITests
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("JWTKernelTests/Fixtures/attacks")

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    static func cases() throws -> [AttackCase] {
        try JSONDecoder().decode(
            [AttackCase].self, from: Data(contentsOf: directory.appendingPathComponent("tokens.json")))
    }
}
