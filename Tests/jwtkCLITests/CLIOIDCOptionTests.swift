import Foundation
import XCTest

/// `jwtk verify --oidc ISSUER`: what is refused before any network access (exit 2, a message naming
/// why, nothing on stdout). Discovery itself, against a loopback server, is in JWTKernelRemoteTests
/// (CLIDiscoveryTests).
final class CLIOIDCOptionTests: XCTestCase {
    typealias F = CLIFixtures

    func assertRefused(
        _ args: [String], mentioning needle: String, file: StaticString = #filePath, line: UInt = #line
    )
        throws
    {
        let run = try CLIHarness.run(["verify"] + args + [try F.token("valid_RS256")])
        XCTAssertEqual(run.status, 2, "\(args): \(run.stderr)", file: file, line: line)
        XCTAssertEqual(run.lines, [], file: file, line: line)
        XCTAssertTrue(
            run.stderr.contains(needle), "\(args): stderr names \(needle): \(run.stderr)", file: file, line: line)
    }

    func testOptionsBesideOIDCAreRefused() throws {
        let issuer = "https://idp.example"
        try assertRefused(["--oidc", issuer, "--iss", issuer], mentioning: "drop --iss")
        try assertRefused(["--oidc", issuer, "--jwks", F.publicJWKS], mentioning: "--oidc")
        try assertRefused(["--oidc", issuer, "--jwks-url", "https://idp.example/keys"], mentioning: "--oidc")
        try assertRefused(["--oidc", issuer, "--provider", "google", "--aud", "a"], mentioning: "--oidc")
        try assertRefused(["--oidc", issuer, "--issuer-config", F.publicJWKS], mentioning: "--oidc")
    }

    func testIssuersThatCannotBeDiscoveredAreRefused() throws {
        try assertRefused(["--oidc", "http://idp.example"], mentioning: "plain http is allowed only to loopback")
        try assertRefused(["--oidc", "https://idp.example?tenant=1"], mentioning: "no query or fragment")
        try assertRefused(["--oidc", "https://idp.example#x"], mentioning: "no query or fragment")
        try assertRefused(["--oidc", "ftp://idp.example"], mentioning: "only https")
    }

    func testHelpMentionsOIDC() throws {
        let run = try CLIHarness.run(["verify", "--help"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue((String(decoding: run.stdout, as: UTF8.self) + run.stderr).contains("--oidc"))
    }
}
