import Foundation
import XCTest
@_spi(Internals) @testable import JWTKernel

/// The `jwtk verify` contract:
///   one JSON object per token per line on stdout, in input order;
///   {"valid":true,"alg":...,"kid":...,"claims":{...}} or {"valid":false,"error":"<code>","message":"..."};
///   exit 0 all valid, 1 any invalid, 2 usage or configuration errors.
final class CLIVerifyTests: XCTestCase {
    typealias F = CLIFixtures

    func verify(_ extra: [String] = [], jwks: [String]? = nil, policy: Bool = true, tokens: [String] = [], stdin: Data? = nil) throws -> CLIHarness.Run {
        try CLIHarness.run(F.verifyArgs(jwks: jwks, policy: policy) + extra + tokens, stdin: stdin)
    }

    /// The error code per output line (nil for valid).
    func codes(_ run: CLIHarness.Run, file: StaticString = #filePath, line: UInt = #line) -> [String?] {
        run.objects(file: file, line: line).map { object in
            (object["valid"] as? Bool) == true ? nil : (object["error"] as? String ?? "<no error member>")
        }
    }

    func assertCodes(_ run: CLIHarness.Run, _ expected: [String?], status: Int32? = nil,
                     file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(codes(run, file: file, line: line).map { $0 ?? "valid" }, expected.map { $0 ?? "valid" },
                       "stderr: \(run.stderr)", file: file, line: line)
        let wanted = status ?? (expected.allSatisfy { $0 == nil } ? 0 : 1)
        XCTAssertEqual(run.status, wanted, "exit status; stderr: \(run.stderr)", file: file, line: line)
    }

    // MARK: Output format

    func testValidTokenLine() throws {
        let token = try F.token("valid_RS256")
        let run = try verify(tokens: [token])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.lines.count, 1)
        let object = try XCTUnwrap(run.objects().first)
        XCTAssertEqual(Set(object.keys), ["valid", "alg", "kid", "claims"])
        XCTAssertEqual(object["valid"] as? Bool, true)
        XCTAssertEqual(object["alg"] as? String, "RS256")
        XCTAssertEqual(object["kid"] as? String, "rsa-1")
        let payload = Base64URL.decode(token.split(separator: ".")[1])!
        let signedClaims = try JSONSerialization.jsonObject(with: Data(payload)) as! NSDictionary
        XCTAssertEqual(object["claims"] as? NSDictionary, signedClaims, "claims are the signed claims")
        XCTAssertTrue(run.lines[0].hasPrefix("{\"valid\":true"), "one compact line: \(run.lines[0])")
    }

    func testInvalidTokenLine() throws {
        let run = try verify(tokens: [try F.token("RS256_signed_by_attacker")])
        XCTAssertEqual(run.status, 1)
        let object = try XCTUnwrap(run.objects().first)
        XCTAssertEqual(Set(object.keys), ["valid", "error", "message"])
        XCTAssertEqual(object["valid"] as? Bool, false)
        XCTAssertEqual(object["error"] as? String, "bad_signature")
        XCTAssertFalse((object["message"] as? String ?? "").isEmpty)
    }

    func testNoKidIsReportedAsNull() throws {
        let run = try verify(tokens: [try F.token("valid_RS256_no_kid_single_fitting_key")])
        XCTAssertEqual(run.status, 0, run.stderr)
        let object = try XCTUnwrap(run.objects().first)
        XCTAssertTrue(object["kid"] is NSNull, "kid: \(String(describing: object["kid"]))")
    }

    func testNonASCIIClaimsSurviveTheOutput() throws {
        let run = try verify(tokens: [try F.token("valid_unicode_claims"), try F.token("valid_escaped_unicode_claims")])
        XCTAssertEqual(run.status, 0, run.stderr)
        let objects = run.objects()
        XCTAssertEqual((objects[0]["claims"] as? [String: Any])?["name"] as? String, "Zoë 🤖 名前")
        XCTAssertEqual((objects[1]["claims"] as? [String: Any])?["name"] as? String, "🤖 ü \u{0} \"q\" \\ / \u{8}\u{C}\n\r\t")
    }

    func testOneLinePerTokenInInputOrder() throws {
        let names = ["valid_RS256", "RS256_signed_by_attacker", "valid_ES256", "alg_none_empty_signature", "valid_EdDSA",
                     "kid_unknown", "valid_PS512"]
        let run = try verify(tokens: try names.map(F.token))
        assertCodes(run, [nil, "bad_signature", nil, "unsupported_alg", nil, "unknown_kid", nil])
        XCTAssertEqual(run.objects().compactMap { $0["alg"] as? String }, ["RS256", "ES256", "EdDSA", "PS512"])
    }

    func testAllValidExitsZeroAnyInvalidExitsOne() throws {
        assertCodes(try verify(tokens: [try F.token("valid_ES384"), try F.token("valid_Ed448")]), [nil, nil], status: 0)
        assertCodes(try verify(tokens: [try F.token("valid_ES384"), try F.token("exp_long_ago")]), [nil, "expired"], status: 1)
        assertCodes(try verify(tokens: [try F.token("exp_long_ago"), try F.token("valid_ES384")]), ["expired", nil], status: 1)
    }

    func testEmptyArgumentIsAMalformedToken() throws {
        assertCodes(try verify(tokens: [""]), ["malformed"])
    }

    // MARK: The whole attack suite through the CLI

    /// Every fixture case that uses the default policy, through stdin, must end
    /// as it does in the library (the CLI adds nothing and loses nothing).
    func testAttackSuiteThroughStdin() throws {
        let cases = try AttackFixtures.cases().filter { $0.policy == nil }
        var checked = 0
        for set in ["public", "hmac"] {
            let selected = cases.filter { $0.jwks == set }
            // Lines are trimmed and blank ones skipped, so tokens with whitespace go as arguments.
            // (Checked on bytes: as Characters, "\r\n" is one grapheme that neither "\r" nor "\n" equals.)
            func lineSafe(_ c: AttackFixtures.Case) -> Bool {
                !c.token.isEmpty && !c.token.utf8.contains { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
            }
            let viaStdin = selected.filter(lineSafe)
            let viaArgs = selected.filter { !lineSafe($0) }
            let jwks = [set == "public" ? F.publicJWKS : F.hmacJWKS]
            let stdinRun = try verify(jwks: jwks, stdin: Data(viaStdin.map(\.token).joined(separator: "\n").utf8))
            let argsRun = try verify(jwks: jwks, tokens: viaArgs.map(\.token))
            for (run, batch) in [(stdinRun, viaStdin), (argsRun, viaArgs)] {
                let got = codes(run)
                XCTAssertEqual(got.count, batch.count, "one line per token (\(set))")
                for (c, code) in zip(batch, got) {
                    if c.expect_valid {
                        XCTAssertNil(code, "FALSE REJECT via CLI: \(c.name)")
                    } else if let code {
                        XCTAssertTrue(c.acceptableCodes.contains(code), "\(c.name): CLI said \(code), expected \(c.acceptableCodes.sorted())")
                    } else {
                        XCTFail("FALSE ACCEPT via CLI: \(c.name)")
                    }
                }
                XCTAssertEqual(run.status, batch.allSatisfy(\.expect_valid) ? 0 : 1)
                checked += min(got.count, batch.count)
            }
        }
        XCTAssertGreaterThan(checked, 350)
    }

    // MARK: stdin

    func testStdinLinesAreTrimmedAndBlankLinesSkipped() throws {
        let a = try F.token("valid_ES256"), b = try F.token("valid_RS256"), c = try F.token("valid_EdDSA")
        let input = "\(a)\r\n\r\n\n   \n\t\(b)\t \n\(c)"   // CRLF, blank lines, padding, no final newline
        assertCodes(try verify(stdin: Data(input.utf8)), [nil, nil, nil])
    }

    func testEmptyStdinPrintsNothing() throws {
        let run = try verify(stdin: Data())
        XCTAssertEqual(run.lines, [])
        XCTAssertEqual(run.status, 0, run.stderr)
    }

    func testLineOverTheSizeLimitIsTooLarge() throws {
        let valid = try F.token("valid_HS256")
        let justOver = String(repeating: "A", count: JWTVerifier.defaultMaxTokenSize + 1)
        let huge = String(repeating: "B", count: 1 << 20)
        let exact = try F.token("size_exactly_limit")
        XCTAssertEqual(exact.utf8.count, JWTVerifier.defaultMaxTokenSize)
        let input = [valid, justOver, huge, exact, valid].joined(separator: "\n") + "\n"
        assertCodes(try verify(jwks: [F.hmacJWKS], stdin: Data(input.utf8)), [nil, "too_large", "too_large", nil, nil])
    }

    func testMaxTokenSizeOption() throws {
        let token = try F.token("valid_HS256")
        let n = token.utf8.count
        assertCodes(try verify(["--max-token-size", String(n)], jwks: [F.hmacJWKS], tokens: [token]), [nil])
        assertCodes(try verify(["--max-token-size", String(n - 1)], jwks: [F.hmacJWKS], tokens: [token]), ["too_large"])
        assertCodes(try verify(["--max-token-size", String(n - 1)], jwks: [F.hmacJWKS], stdin: Data(token.utf8)), ["too_large"])
    }

    /// 100,000 lines through stdin in one process: it completes, one line out per
    /// line in, in order (constant memory is the reader's design; here we check it finishes).
    func testHundredThousandLinesOnStdin() throws {
        let valid = try F.token("valid_HS256"), invalid = try F.token("HS256_tag_truncated_16")
        let count = 100_000
        var input = Data()
        input.reserveCapacity(count * (valid.utf8.count + 1))
        let validLine = Data((valid + "\n").utf8), invalidLine = Data((invalid + "\n").utf8)
        for i in 0..<count { input.append(i % 1000 == 999 ? invalidLine : validLine) }
        let started = Date()
        let run = try verify(jwks: [F.hmacJWKS], stdin: input)
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(run.status, 1, run.stderr)
        // Count and spot-check without parsing 100k JSON objects.
        var lines = 0, mismatches = 0
        for line in run.stdout.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) where !line.isEmpty {
            let isValid = line.starts(with: Array("{\"valid\":true".utf8))
            if isValid != (lines % 1000 != 999) { mismatches += 1 }
            lines += 1
        }
        XCTAssertEqual(lines, count)
        XCTAssertEqual(mismatches, 0, "results out of input order")
        print("jwtk: \(count) stdin lines in \(String(format: "%.2f", elapsed)) s")
    }

    // MARK: Options

    func testIssuerAndAudienceAreNotCheckedUnlessGiven() throws {
        let names = ["valid_ES256", "iss_wrong", "aud_wrong", "iss_missing", "aud_missing"]
        let tokens = try names.map(F.token)
        assertCodes(try verify(policy: false, tokens: tokens), [nil, nil, nil, nil, nil])
        assertCodes(try verify(["--iss", AttackFixtures.issuer], policy: false, tokens: tokens), [nil, "bad_issuer", nil, "missing_claim", nil])
        assertCodes(try verify(["--aud", AttackFixtures.audience], policy: false, tokens: tokens), [nil, nil, "bad_audience", nil, "missing_claim"])
        assertCodes(try verify(policy: true, tokens: tokens), [nil, "bad_issuer", "bad_audience", "missing_claim", "missing_claim"])
    }

    func testRepeatedIssuersAndAudiences() throws {
        let tokens = try ["valid_ES256", "iss_wrong", "aud_wrong"].map(F.token)
        assertCodes(try verify(["--iss", "https://evil.example", "--iss", AttackFixtures.issuer], policy: false, tokens: tokens), [nil, nil, nil])
        assertCodes(try verify(["--aud", "api://other", "--aud", AttackFixtures.audience], policy: false, tokens: tokens), [nil, nil, nil])
        assertCodes(try verify(["--aud", "api://nobody"], policy: false, tokens: tokens), ["bad_audience", "bad_audience", "bad_audience"])
    }

    func testLeewayZeroMeansNone() throws {
        let tokens = try ["exp_equals_now_leeway_0", "nbf_now_plus_60_leeway_60", "exp_now_minus_59_leeway_60"].map(F.token)
        assertCodes(try verify(tokens: tokens), [nil, nil, nil])
        assertCodes(try verify(["--leeway", "0"], tokens: tokens), ["expired", "not_yet_valid", "expired"])
        assertCodes(try verify(["--leeway", "59"], tokens: tokens), [nil, "not_yet_valid", "expired"])
        assertCodes(try verify(["--leeway", "100000"], tokens: [try F.token("exp_long_ago")]), ["expired"])
    }

    func testNowOption() throws {
        // valid_ES256: nbf = now - 60, exp = now + 3600; default leeway 60.
        let token = try F.token("valid_ES256")
        let t = AttackFixtures.now
        func at(_ time: Int64) throws -> String? {
            let run = try CLIHarness.run(["verify", "--jwks", F.publicJWKS, "--now", String(time), token])
            return codes(run).first ?? "<no line>"
        }
        XCTAssertNil(try at(t))
        XCTAssertNil(try at(t + 3659))
        XCTAssertEqual(try at(t + 3660), "expired")
        XCTAssertNil(try at(t - 120))
        XCTAssertEqual(try at(t - 121), "not_yet_valid")
        // Without --now the system clock is used, and these 2023 tokens have long expired.
        let run = try CLIHarness.run(["verify", "--jwks", F.publicJWKS, token])
        XCTAssertEqual(codes(run), ["expired"])
    }

    func testRequireOption() throws {
        let token = try F.token("valid_ES256")
        assertCodes(try verify(["--require", "sub"], tokens: [token]), [nil])
        assertCodes(try verify(["--require", "sub", "--require", "iat", "--require", "nbf"], tokens: [token]), [nil])
        assertCodes(try verify(["--require", "jti"], tokens: [token]), ["missing_claim"])
        assertCodes(try verify(["--require", "sub", "--require", "jti"], tokens: [token]), ["missing_claim"])
    }

    func testNonceOption() throws {
        let tokens = try ["nonce_matches", "nonce_escaped_matches", "nonce_mismatch", "valid_ES256"].map(F.token)
        assertCodes(try verify(["--nonce", "n-0S6_WzA2Mj"], tokens: tokens), [nil, nil, "bad_nonce", "missing_claim"])
        assertCodes(try verify(tokens: tokens), [nil, nil, nil, nil])
    }

    func testTypOption() throws {
        // Positive controls carry typ "JWT"; typ_mismatch carries "at+jwt"; valid_no_typ_no_policy has none.
        let tokens = try ["valid_ES256", "typ_application_jwt_ok", "typ_mismatch", "valid_no_typ_no_policy"].map(F.token)
        assertCodes(try verify(["--typ", "JWT"], tokens: tokens), [nil, nil, "bad_typ", "bad_typ"])
        assertCodes(try verify(["--typ", "application/jwt"], tokens: tokens), [nil, nil, "bad_typ", "bad_typ"])
        assertCodes(try verify(["--typ", "at+jwt"], tokens: tokens), ["bad_typ", "bad_typ", nil, "bad_typ"])
        assertCodes(try verify(tokens: tokens), [nil, nil, nil, nil])
    }

    func testAlgOption() throws {
        let tokens = try ["valid_ES256", "valid_RS256", "valid_EdDSA"].map(F.token)
        assertCodes(try verify(["--alg", "RS256"], tokens: tokens), ["alg_not_allowed", nil, "alg_not_allowed"])
        assertCodes(try verify(["--alg", "RS256", "--alg", "ES256"], tokens: tokens), [nil, nil, "alg_not_allowed"])
        assertCodes(try verify(["--alg", "EdDSA", "--alg", "ES256", "--alg", "RS256"], tokens: tokens), [nil, nil, nil])
    }

    // MARK: Key files

    func testSeveralKeySetFiles() throws {
        let names = ["valid_RS256", "valid_HS512", "valid_ES512", "HS256_keyed_with_rsa_public_pem_kid", "HS256_keyed_with_rsa_public_pem_no_kid"]
        let run = try verify(jwks: [F.publicJWKS, F.hmacJWKS], tokens: try names.map(F.token))
        assertCodes(run, [nil, nil, nil, "key_alg_mismatch", "unknown_kid"])
    }

    func testKeyFileFormats() throws {
        assertCodes(try verify(jwks: [F.cli("pem-map.json")], tokens: [try F.token("valid_RS256"), try F.token("valid_PS256")]), [nil, nil])
        assertCodes(try verify(jwks: [F.cli("single-jwk.json")], tokens: [try F.token("valid_ES256"), try F.token("valid_ES256_no_kid")]), [nil, nil])
        assertCodes(try verify(jwks: [F.cli("rsa-1.pub.pem")], tokens: [try F.token("valid_RS256_no_kid_single_fitting_key")]), [nil])
        // HMAC keyed with the PEM text itself, against the PEM key file: never valid.
        let confused = try F.token("HS256_keyed_with_rsa_public_pem_no_kid")
        let run = try verify(jwks: [F.cli("rsa-1.pub.pem")], tokens: [confused])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(["unknown_kid", "key_alg_mismatch"].contains(codes(run).first ?? nil), "\(codes(run))")
    }

    func testOneBadKeyIsSkippedWithAWarning() throws {
        let run = try verify(jwks: [F.cli("one-bad-key.json")], tokens: [try F.token("valid_RS256")])
        assertCodes(run, [nil])
        XCTAssertTrue(run.stderr.contains("weak-rsa-1024"), "the skipped key is named: \(run.stderr)")
        XCTAssertTrue(run.stderr.contains("one-bad-key.json"), "the file is named: \(run.stderr)")
    }

    // MARK: Robustness

    /// A large --max-token-size is a legitimate request (or a usage error), never a crash.
    func testHugeMaxTokenSizeDoesNotCrash() throws {
        let token = try F.token("valid_HS256")
        for size in [String(Int.max), String(Int.max - 63), "1000000000000"] {
            for viaStdin in [true, false] {
                let run = try verify(["--max-token-size", size], jwks: [F.hmacJWKS],
                                     tokens: viaStdin ? [] : [token], stdin: viaStdin ? Data((token + "\n").utf8) : nil)
                XCTAssertTrue(run.status == 0 || run.status == 2,
                              "--max-token-size \(size) via \(viaStdin ? "stdin" : "arguments"): exit \(run.status) (crash?); stderr: \(run.stderr.prefix(300))")
                if run.status == 0 { XCTAssertEqual(codes(run), [nil]) }
            }
        }
    }

    /// What the CLI prints as "claims" for a valid token must be unambiguous JSON:
    /// a nested object with a duplicate member name would be read differently by
    /// different consumers (first vs last wins). Refusing the token is fine too.
    func testValidOutputNeverCarriesDuplicateMemberNames() throws {
        let secret = [UInt8](repeating: 0x33, count: 32)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jwtk-dup-\(UUID().uuidString).json")
        try Data("{\"keys\":[{\"kty\":\"oct\",\"kid\":\"t\",\"k\":\"\(Base64URL.encode(secret))\"}]}".utf8).write(to: dir)
        defer { try? FileManager.default.removeItem(at: dir) }
        let claims = "{\"exp\":\(AttackFixtures.now + 60),\"sub\":\"u\",\"ext\":{\"role\":\"user\",\"role\":\"admin\"}}"
        let token = AttackSigner.token(header: #"{"alg":"HS256","kid":"t"}"#, claims: claims, key: secret)
        let run = try CLIHarness.run(["verify", "--jwks", dir.path, "--now", F.now, token])
        guard run.status == 0, let line = run.lines.first else { return }   // refused: fine
        XCTAssertNoThrow(try JSONValue.parse(Array(line.utf8)),
                         "jwtk printed valid:true with claims holding a duplicate member name: \(line)")
    }
}
