import Foundation
import XCTest

/// The `jwtk verify` contract:
///   one JSON object per token per line on stdout, in input order;
///   {"valid":true,"alg":...,"kid":...,"claims":{...}} or {"valid":false,"error":"<code>","message":"..."};
///   exit 0 all valid, 1 any invalid, 2 usage or configuration errors.
/// Standard input and key files have test classes of their own.
final class CLIVerifyTests: XCTestCase, VerifyRunning {
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
        let payload = Base64URLText.decode(token.split(separator: ".")[1])!
        let signedClaims = try JSONSerialization.jsonObject(with: payload) as! NSDictionary
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
        XCTAssertEqual(
            (objects[1]["claims"] as? [String: Any])?["name"] as? String, "🤖 ü \u{0} \"q\" \\ / \u{8}\u{C}\n\r\t")
    }

    func testOneLinePerTokenInInputOrder() throws {
        let names = [
            "valid_RS256", "RS256_signed_by_attacker", "valid_ES256", "alg_none_empty_signature", "valid_EdDSA",
            "kid_unknown", "valid_PS512",
        ]
        let run = try verify(tokens: try names.map(F.token))
        assertCodes(run, [nil, "bad_signature", nil, "unsupported_alg", nil, "unknown_kid", nil])
        XCTAssertEqual(run.objects().compactMap { $0["alg"] as? String }, ["RS256", "ES256", "EdDSA", "PS512"])
    }

    func testAllValidExitsZeroAnyInvalidExitsOne() throws {
        assertCodes(
            try verify(tokens: [try F.token("valid_ES384"), try F.token("valid_Ed448")]), [nil, nil], status: 0)
        assertCodes(
            try verify(tokens: [try F.token("valid_ES384"), try F.token("exp_long_ago")]), [nil, "expired"], status: 1)
        assertCodes(
            try verify(tokens: [try F.token("exp_long_ago"), try F.token("valid_ES384")]), ["expired", nil], status: 1)
    }

    func testEmptyArgumentIsAMalformedToken() throws {
        assertCodes(try verify(tokens: [""]), ["malformed"])
    }

    // MARK: Options

    func testIssuerAndAudienceAreNotCheckedUnlessGiven() throws {
        let names = ["valid_ES256", "iss_wrong", "aud_wrong", "iss_missing", "aud_missing"]
        let tokens = try names.map(F.token)
        assertCodes(try verify(policy: false, tokens: tokens), [nil, nil, nil, nil, nil])
        assertCodes(
            try verify(["--iss", AttackSuite.issuer], policy: false, tokens: tokens),
            [nil, "bad_issuer", nil, "missing_claim", nil])
        assertCodes(
            try verify(["--aud", AttackSuite.audience], policy: false, tokens: tokens),
            [nil, nil, "bad_audience", nil, "missing_claim"])
        assertCodes(
            try verify(policy: true, tokens: tokens),
            [nil, "bad_issuer", "bad_audience", "missing_claim", "missing_claim"])
    }

    func testRepeatedIssuersAndAudiences() throws {
        let tokens = try ["valid_ES256", "iss_wrong", "aud_wrong"].map(F.token)
        assertCodes(
            try verify(["--iss", "https://evil.example", "--iss", AttackSuite.issuer], policy: false, tokens: tokens),
            [nil, nil, nil])
        assertCodes(
            try verify(["--aud", "api://other", "--aud", AttackSuite.audience], policy: false, tokens: tokens),
            [nil, nil, nil])
        assertCodes(
            try verify(["--aud", "api://nobody"], policy: false, tokens: tokens),
            ["bad_audience", "bad_audience", "bad_audience"])
    }

    func testLeewayZeroMeansNone() throws {
        let tokens = try ["exp_equals_now_leeway_0", "nbf_now_plus_60_leeway_60", "exp_now_minus_59_leeway_60"].map(
            F.token)
        assertCodes(try verify(tokens: tokens), [nil, nil, nil])
        assertCodes(try verify(["--leeway", "0"], tokens: tokens), ["expired", "not_yet_valid", "expired"])
        assertCodes(try verify(["--leeway", "59"], tokens: tokens), [nil, "not_yet_valid", "expired"])
        assertCodes(try verify(["--leeway", "100000"], tokens: [try F.token("exp_long_ago")]), ["expired"])
    }

    func testNowOption() throws {
        // valid_ES256: nbf = now - 60, exp = now + 3600; default leeway 60.
        let token = try F.token("valid_ES256")
        let t = AttackSuite.now
        func at(_ time: Int64) throws -> String? {
            let run = try CLIHarness.run(["verify", "--jwks", F.publicJWKS, "--now", String(time), token])
            return run.codes().first ?? "<no line>"
        }
        XCTAssertNil(try at(t))
        XCTAssertNil(try at(t + 3659))
        XCTAssertEqual(try at(t + 3660), "expired")
        XCTAssertNil(try at(t - 120))
        XCTAssertEqual(try at(t - 121), "not_yet_valid")
        // Without --now the system clock is used, and these 2023 tokens have long expired.
        let run = try CLIHarness.run(["verify", "--jwks", F.publicJWKS, token])
        XCTAssertEqual(run.codes(), ["expired"])
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
        let tokens = try ["valid_ES256", "typ_application_jwt_ok", "typ_mismatch", "valid_no_typ_no_policy"].map(
            F.token)
        assertCodes(try verify(["--typ", "JWT"], tokens: tokens), [nil, nil, "bad_typ", "bad_typ"])
        assertCodes(try verify(["--typ", "application/jwt"], tokens: tokens), [nil, nil, "bad_typ", "bad_typ"])
        assertCodes(try verify(["--typ", "at+jwt"], tokens: tokens), ["bad_typ", "bad_typ", nil, "bad_typ"])
        assertCodes(try verify(tokens: tokens), [nil, nil, nil, nil])
    }

    /// An `iat` later than now plus the leeway is `issued_in_future`; `--leeway` moves the line.
    func testIssuedInTheFuture() throws {
        let t = AttackSuite.now
        let tokens = try [t, t + 60, t + 61, t + 3600].map { iat in
            try F.mintHS256(claims: "{\"iat\":\(iat),\"exp\":\(t + 7200)}")
        }
        assertCodes(
            try verify(jwks: [F.hmacJWKS], policy: false, tokens: tokens),
            [nil, nil, "issued_in_future", "issued_in_future"])
        assertCodes(
            try verify(["--leeway", "0"], jwks: [F.hmacJWKS], policy: false, tokens: tokens),
            [nil, "issued_in_future", "issued_in_future", "issued_in_future"])
    }

    func testAlgOption() throws {
        let tokens = try ["valid_ES256", "valid_RS256", "valid_EdDSA"].map(F.token)
        assertCodes(try verify(["--alg", "RS256"], tokens: tokens), ["alg_not_allowed", nil, "alg_not_allowed"])
        assertCodes(try verify(["--alg", "RS256", "--alg", "ES256"], tokens: tokens), [nil, nil, "alg_not_allowed"])
        assertCodes(
            try verify(["--alg", "EdDSA", "--alg", "ES256", "--alg", "RS256"], tokens: tokens), [nil, nil, nil])
    }

    // MARK: Robustness

    /// A large --max-token-size is a legitimate request (or a usage error), never a crash.
    func testHugeMaxTokenSizeDoesNotCrash() throws {
        let token = try F.token("valid_HS256")
        for size in [String(Int.max), String(Int.max - 63), "1000000000000"] {
            for viaStdin in [true, false] {
                let run = try verify(
                    ["--max-token-size", size], jwks: [F.hmacJWKS],
                    tokens: viaStdin ? [] : [token], stdin: viaStdin ? Data((token + "\n").utf8) : nil)
                XCTAssertTrue(
                    run.status == 0 || run.status == 2,
                    "--max-token-size \(size) via \(viaStdin ? "stdin" : "arguments"): exit \(run.status) (crash?); stderr: \(run.stderr.prefix(300))"
                )
                if run.status == 0 { XCTAssertEqual(run.codes(), [nil]) }
            }
        }
    }

    /// What the CLI prints as "claims" for a valid token must be unambiguous JSON:
    /// a nested object with a duplicate member name would be read differently by
    /// different consumers (first vs last wins). Refusing the token is fine too.
    func testValidOutputNeverCarriesDuplicateMemberNames() throws {
        let secret = [UInt8](repeating: 0x33, count: 32)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jwtk-dup-\(UUID().uuidString).json")
        try Data("{\"keys\":[{\"kty\":\"oct\",\"kid\":\"t\",\"k\":\"\(Base64URLText.encode(secret))\"}]}".utf8).write(
            to: dir)
        defer { try? FileManager.default.removeItem(at: dir) }
        let claims = "{\"exp\":\(AttackSuite.now + 60),\"sub\":\"u\",\"ext\":{\"role\":\"user\",\"role\":\"admin\"}}"
        let token = HS256Signer.token(header: #"{"alg":"HS256","kid":"t"}"#, claims: claims, key: secret)
        let run = try CLIHarness.run(["verify", "--jwks", dir.path, "--now", F.now, token])
        guard run.status == 0, let line = run.lines.first else { return }  // refused: fine
        XCTAssertEqual(
            line.components(separatedBy: "\"role\"").count - 1, 1,
            "jwtk printed valid:true with claims holding a duplicate member name: \(line)")
    }
}
