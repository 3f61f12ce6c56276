import Foundation
import XCTest

/// `jwtk verify --decryption-keys FILE --token-type nested|encrypted`: JWE tokens from jwcrypto (Fixtures/jwe).
final class CLIDecryptionTests: XCTestCase {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures/jwe")
    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    private func token(_ name: String) throws -> String {
        let doc = try JSONSerialization.jsonObject(
            with: Data(contentsOf: Self.directory.appendingPathComponent("tokens.json")))
        return try XCTUnwrap(((doc as? [String: Any])?["tokens"] as? [String: String])?[name], name)
    }

    private func run(_ args: [String], tokens: [String]) throws -> CLIRun {
        try CLIHarness.run(["verify", "--now", "1800000000", "--aud", "jwe-tests"] + args + tokens)
    }

    func testNested() throws {
        let run = try run(
            [
                "--jwks", Self.path("verification-keys.json"), "--decryption-keys", Self.path("decryption-keys.json"),
                "--token-type", "nested",
            ],
            tokens: [
                try token("nested_dir_A256GCM"), try token("nested_RSA-OAEP-256_A256GCM"),
                try token("nested_ECDH-ES+A256KW_x25519"), try token("encrypted_A256KW_A256CBC-HS512"),
                try token("refused_RSA1_5"), try token("refused_zip"),
            ])
        XCTAssertEqual(run.codes(), [nil, nil, nil, "malformed", "unsupported_alg", "unsupported_alg"], run.stderr)
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(String(decoding: run.stdout, as: UTF8.self).contains(#""alg":"ES256","kid":"sig-1""#))
    }

    func testEncryptedNeedsNoVerificationKeys() throws {
        let run = try run(
            ["--decryption-keys", Self.path("decryption-keys.json"), "--token-type", "encrypted"],
            tokens: [try token("encrypted_A256KW_A256CBC-HS512")])
        XCTAssertEqual(run.codes(), [nil], run.stderr)
        XCTAssertEqual(run.status, 0)
        XCTAssertTrue(
            String(decoding: run.stdout, as: UTF8.self).contains(
                #""alg":"A256KW","enc":"A256CBC-HS512","kid":"kw-256""#))
    }

    func testDecryptionAndVerificationKeyFilesAreNotInterchangeable() throws {
        // The decryption keys as --jwks: every key refused (use enc, private parts): a configuration error.
        let asJWKS = try run(["--jwks", Self.path("decryption-keys.json")], tokens: [try token("nested_dir_A256GCM")])
        XCTAssertEqual(asJWKS.status, 2)
        // The signing key as --decryption-keys: refused.
        let asDecryption = try run(
            ["--decryption-keys", Self.path("verification-keys.json"), "--token-type", "encrypted"],
            tokens: [try token("encrypted_A256KW_A256CBC-HS512")])
        XCTAssertEqual(asDecryption.status, 2)
        XCTAssertTrue(asDecryption.stderr.contains("decryption key"), asDecryption.stderr)
    }

    func testUsage() throws {
        XCTAssertEqual(try run(["--decryption-keys", Self.path("decryption-keys.json")], tokens: ["x"]).status, 2)
        XCTAssertEqual(
            try run(["--token-type", "nested", "--jwks", Self.path("verification-keys.json")], tokens: ["x"]).status, 2)
        XCTAssertEqual(try run(["--token-type", "jwe"], tokens: ["x"]).status, 2)
    }
}
