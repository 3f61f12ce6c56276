import Foundation
import XCTest

/// `--jwks FILE`: the formats a file may hold, keys refused with a warning, and
/// several files merged into one trusted set.
final class CLIKeySetFileTests: XCTestCase, VerifyRunning {
    func testSeveralKeySetFiles() throws {
        let names = [
            "valid_RS256", "valid_HS512", "valid_ES512", "HS256_keyed_with_rsa_public_pem_kid",
            "HS256_keyed_with_rsa_public_pem_no_kid",
        ]
        let run = try verify(jwks: [F.publicJWKS, F.hmacJWKS], tokens: try names.map(F.token))
        assertCodes(run, [nil, nil, nil, "key_alg_mismatch", "unknown_kid"])
    }

    func testKeyFileFormats() throws {
        assertCodes(
            try verify(
                jwks: [F.keyFile("pem-map.json")], tokens: [try F.token("valid_RS256"), try F.token("valid_PS256")]),
            [nil, nil])
        assertCodes(
            try verify(
                jwks: [F.keyFile("single-jwk.json")],
                tokens: [try F.token("valid_ES256"), try F.token("valid_ES256_no_kid")]), [nil, nil])
        assertCodes(
            try verify(
                jwks: [F.keyFile("rsa-1.pub.pem")], tokens: [try F.token("valid_RS256_no_kid_single_fitting_key")]),
            [nil])
        // A PEM key has no kid: a candidate for tokens whose kid no key has, as issuers' tokens all carry one.
        assertCodes(try verify(jwks: [F.keyFile("rsa-1.pub.pem")], tokens: [try F.token("valid_RS256")]), [nil])
        // HMAC keyed with the PEM text itself, against the PEM key file: never valid.
        let confused = try F.token("HS256_keyed_with_rsa_public_pem_no_kid")
        let run = try verify(jwks: [F.keyFile("rsa-1.pub.pem")], tokens: [confused])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(["unknown_kid", "key_alg_mismatch"].contains(run.codes().first ?? nil), "\(run.codes())")
    }

    func testOneBadKeyIsSkippedWithAWarning() throws {
        let run = try verify(jwks: [F.keyFile("one-bad-key.json")], tokens: [try F.token("valid_RS256")])
        assertCodes(run, [nil])
        XCTAssertTrue(run.stderr.contains("weak-rsa-1024"), "the skipped key is named: \(run.stderr)")
        XCTAssertTrue(run.stderr.contains("one-bad-key.json"), "the file is named: \(run.stderr)")
    }

    /// An HMAC secret shorter than its hash output: refused unless `--allow-short-hmac-secrets`, which
    /// loads it with one warning naming the key and the rule.
    func testShortHMACSecretsOnlyWithTheFlag() throws {
        let secret = Array("fantasticjwt".utf8)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("jwtk-short-\(UUID().uuidString).json")
        try Data(#"{"keys":[{"kty":"oct","kid":"0001","k":"\#(Base64URLText.encode(secret))"}]}"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let claims =
            #"{"iss":"\#(AttackSuite.issuer)","aud":"\#(AttackSuite.audience)","exp":\#(AttackSuite.now + 60)}"#
        let token = HS256Signer.token(header: #"{"alg":"HS256","kid":"0001"}"#, claims: claims, key: secret)
        let refused = try verify(jwks: [file.path], tokens: [token])
        XCTAssertEqual(refused.status, 2, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("\"0001\"") && refused.stderr.contains("12 bytes"), refused.stderr)
        let allowed = try verify(["--allow-short-hmac-secrets"], jwks: [file.path], tokens: [token])
        assertCodes(allowed, [nil])
        XCTAssertEqual(
            allowed.stderr.components(separatedBy: "\n").filter { $0.contains("warning") }.count, 1, allowed.stderr)
        XCTAssertTrue(allowed.stderr.contains("\"0001\"") && allowed.stderr.contains("RFC 7518"), allowed.stderr)
    }

    /// Keys no issuer should publish are refused naming the key: an Ed25519 point of small order.
    func testASmallOrderEd25519KeyIsRefusedNamingIt() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("jwtk-low-\(UUID().uuidString).json")
        try Data(
            #"{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"low-order","x":"AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}]}"#
                .utf8
        ).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        // Alone, a file without a usable key is a configuration error.
        let alone = try verify(jwks: [file.path], tokens: [try F.token("valid_RS256")])
        XCTAssertEqual(alone.status, 2, alone.stderr)
        XCTAssertTrue(alone.stderr.contains("low-order") && alone.stderr.contains("small order"), alone.stderr)
        // Beside a good file it adds nothing, said by name, as jwtk_keystore_load_jwks_many does: the set is the
        // union of the files' usable keys.
        let beside = try verify(jwks: [F.publicJWKS, file.path], tokens: [try F.token("valid_RS256")])
        assertCodes(beside, [nil])
        XCTAssertTrue(beside.stderr.contains("low-order") && beside.stderr.contains("small order"), beside.stderr)
        XCTAssertTrue(beside.stderr.contains("\(file.path): no usable key in this file"), beside.stderr)
    }

    /// No file with a usable key among several: refused, as by the C library's `_many` load.
    func testSeveralFilesWithoutAUsableKeyAreRefused() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("jwtk-priv-\(UUID().uuidString).json")
        try Data(#"{"keys":[{"kty":"oct","kid":"s","k":"c2hvcnQ","use":"enc"}]}"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try verify(jwks: [file.path, file.path], tokens: [try F.token("valid_HS256")])
        XCTAssertEqual(run.status, 2, run.stderr)
        XCTAssertTrue(run.stderr.contains("no usable key across the --jwks files"), run.stderr)
    }

    /// Within one file, HMAC secrets next to public keys are refused as the
    /// library refuses them in a published set; the public keys still load.
    func testHMACSecretsNextToPublicKeysAreRefused() throws {
        let tokens = try ["valid_RS256", "valid_ES256", "valid_HS256"].map(F.token)
        let run = try verify(jwks: [F.keyFile("mixed-keys.json")], tokens: tokens)
        assertCodes(run, [nil, nil, "unknown_kid"])
        XCTAssertTrue(run.stderr.contains("mixed-keys.json"), "the file is named: \(run.stderr)")
        XCTAssertTrue(run.stderr.contains("skipped key \"hmac-1\""), "the refused secret is named: \(run.stderr)")
        XCTAssertTrue(run.stderr.contains("--jwks file of their own"), "the way out is said: \(run.stderr)")
    }

    /// Secrets and public keys in separate files are both trusted, each key
    /// bound to its own algorithm family, whatever the order of the files.
    func testSecretsAndPublicKeysInSeparateFiles() throws {
        let names = ["valid_HS256", "valid_RS256", "valid_ES256", "HS256_keyed_with_rsa_public_pem_kid"]
        for files in [[F.publicJWKS, F.hmacJWKS], [F.hmacJWKS, F.publicJWKS]] {
            let run = try verify(jwks: files, tokens: try names.map(F.token))
            assertCodes(run, [nil, nil, nil, "key_alg_mismatch"])
            XCTAssertEqual(run.stderr, "", "nothing refused")
        }
    }

    /// A kid that two files give to different keys of one family is ambiguous:
    /// both are refused, and stderr says so (no file alone shows the problem).
    func testKidClashAcrossFilesIsReported() throws {
        let keys =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: F.publicJWKS)))
            as! [String: Any]
        var impostor = (keys["keys"] as! [[String: Any]]).first { $0["kid"] as? String == "rsa-ps256" }!
        impostor["kid"] = "rsa-1"
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("jwtk-clash-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: ["keys": [impostor]]).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try verify(
            jwks: [F.publicJWKS, file.path], tokens: [try F.token("valid_RS256"), try F.token("valid_ES256")])
        XCTAssertEqual(run.codes().last ?? "<none>", nil, "other keys are unaffected; stderr: \(run.stderr)")
        XCTAssertNotNil(run.codes().first ?? nil, "rsa-1 is ambiguous and must not verify")
        XCTAssertTrue(run.stderr.contains("\"rsa-1\"") && run.stderr.contains("across the --jwks files"), run.stderr)
    }
}
