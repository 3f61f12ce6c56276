import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

/// RFC 8725 attack suite: every case in Fixtures/attacks/tokens.json must end
/// exactly as the generator says. A false accept (an attack that verifies) and
/// a false reject (a positive control that does not) are both failures.
final class AttackSuiteTests: XCTestCase {
    func testFixtureShape() throws {
        let cases = try AttackFixtures.cases()
        XCTAssertEqual(cases.count, AttackFixtures.expectedCaseCount, "tokens.json case count")
        XCTAssertEqual(cases.filter(\.expect_valid).count, AttackFixtures.expectedValidCount, "positive controls")
        XCTAssertEqual(Set(cases.map(\.name)).count, cases.count, "case names are unique")
        let codes = Set(JWTErrorCode.allCases.map(\.name))
        for c in cases {
            XCTAssertTrue(c.jwks == "public" || c.jwks == "hmac", c.name)
            XCTAssertEqual(c.expect_valid, c.expect_error == nil, "\(c.name): valid iff no expected error")
            for code in c.acceptableCodes { XCTAssertTrue(codes.contains(code), "\(c.name): unknown code \(code)") }
            for alg in c.policy?.algorithms ?? [] { XCTAssertNotNil(JWTAlgorithm(rawValue: alg), "\(c.name): \(alg)") }
        }
    }

    func testKeySetsLoadWithoutRejections() throws {
        let publicKeys = try AttackFixtures.publicKeys()
        XCTAssertEqual(
            publicKeys.keys.compactMap(\.kid).sorted(),
            ["ec-k256", "ec-p256", "ec-p384", "ec-p521", "ed25519", "ed448", "rsa-1", "rsa-ps256"])
        XCTAssertEqual(publicKeys.rejected, [])
        let hmacKeys = try AttackFixtures.hmacKeys()
        XCTAssertEqual(hmacKeys.keys.compactMap(\.kid).sorted(), ["hmac-1", "hmac-256"])
        XCTAssertEqual(hmacKeys.rejected, [])
    }

    /// The suite itself: one assertion per case, then a summary that separates
    /// false accepts (security failures) from false rejects (availability failures).
    func testEveryCaseEndsAsExpected() throws {
        let cases = try AttackFixtures.cases()
        let factory = try AttackFixtures.VerifierFactory()
        var falseAccepts: [String] = [], falseRejects: [String] = [], wrongCode: [String] = []
        for c in cases {
            let got = AttackFixtures.outcome(factory.verifier(for: c), c.token)
            if c.expect_valid {
                if let got {
                    falseRejects.append("\(c.name): \(got)")
                    XCTFail("FALSE REJECT \(c.name): expected valid, got \(got)\(c.note.map { " (\($0))" } ?? "")")
                }
            } else if let got {
                if !c.acceptableCodes.contains(got) {
                    wrongCode.append("\(c.name): \(got)")
                    XCTFail(
                        "\(c.name): expected \(c.acceptableCodes.sorted().joined(separator: "|")), got \(got)\(c.note.map { " (\($0))" } ?? "")"
                    )
                }
            } else {
                falseAccepts.append(c.name)
                XCTFail(
                    "FALSE ACCEPT \(c.name): expected \(c.expect_error!), but the token verified\(c.note.map { " (\($0))" } ?? "")"
                )
            }
        }
        XCTAssertEqual(falseAccepts, [], "attacks that verified")
        XCTAssertEqual(falseRejects, [], "positive controls that were refused")
        print(
            "attack suite: \(cases.count) cases, \(falseAccepts.count) false accepts, \(falseRejects.count) false rejects, \(wrongCode.count) wrong codes"
        )
    }

    /// Zero false rejects: each algorithm the kernel implements has a positive control that verifies as that algorithm.
    func testPositiveControlsCoverEveryAlgorithm() throws {
        let cases = try AttackFixtures.cases()
        let factory = try AttackFixtures.VerifierFactory()
        var verified = Set<JWTAlgorithm>()
        for c in cases where c.expect_valid {
            guard let result = try? factory.verifier(for: c).verify(c.token) else { continue }
            XCTAssertEqual(result.algorithm.rawValue, c.headerAlg, c.name)
            verified.insert(result.algorithm)
        }
        XCTAssertEqual(verified, Set(JWTAlgorithm.allCases), "algorithms without a verifying positive control")
    }

    /// A valid positive control reports what it verified with.
    func testPositiveControlResultsCarryKidAndClaims() throws {
        let cases = try AttackFixtures.cases()
        let factory = try AttackFixtures.VerifierFactory()
        for c in cases where c.expect_valid && c.name == "valid_" + (c.headerAlg ?? "") {
            let result = try factory.verifier(for: c).verify(c.token)
            XCTAssertEqual(result.issuer, AttackFixtures.issuer, c.name)
            XCTAssertEqual(result.audiences, [AttackFixtures.audience], c.name)
            XCTAssertEqual(result.subject, "user-1", c.name)
            XCTAssertEqual(result.expiresAt, Double(AttackFixtures.now + 3600), c.name)
            XCTAssertNotNil(result.kid, c.name)
            XCTAssertTrue(result.key.algorithms.contains(result.algorithm), c.name)
        }
    }

    /// The allocation-free `check` path and the copying `verify` path agree on every case.
    func testCheckAgreesWithVerify() throws {
        let cases = try AttackFixtures.cases()
        let factory = try AttackFixtures.VerifierFactory()
        for c in cases {
            let verifier = factory.verifier(for: c)
            var token = c.token
            let viaCheck = token.withUTF8 { verifier.check(UnsafeRawBufferPointer($0)) }?.code.name
            XCTAssertEqual(viaCheck, AttackFixtures.outcome(verifier, c.token), c.name)
        }
    }

    /// Failures decided before the claims are read must be the same through `verifyJWS`,
    /// and every valid JWT is a valid JWS.
    func testVerifyJWSAgreesBeforeClaims() throws {
        let signatureStage: Set<String> = [
            "too_large", "unsupported_alg", "alg_not_allowed", "unknown_kid",
            "key_alg_mismatch", "bad_signature", "crit_unsupported", "bad_typ",
        ]
        let cases = try AttackFixtures.cases()
        let factory = try AttackFixtures.VerifierFactory()
        for c in cases {
            let verifier = factory.verifier(for: c)
            let jws: String?
            do { _ = try verifier.verifyJWS(c.token); jws = nil } catch { jws = error.code.name }
            if c.expect_valid {
                XCTAssertNil(jws, "\(c.name): a valid JWT must be a valid JWS")
            } else if let expected = c.expect_error, signatureStage.contains(expected), c.accept_errors == nil {
                XCTAssertEqual(jws, expected, c.name)
            }
        }
    }

    /// The verifier is shared across threads (per-thread scratch memory):
    /// the whole suite run concurrently must give the sequential results.
    func testConcurrentVerificationGivesTheSameResults() throws {
        let cases = try AttackFixtures.cases()
        let factory = try AttackFixtures.VerifierFactory()
        let verifiers = cases.map { factory.verifier(for: $0) }
        let expected = zip(cases, verifiers).map { AttackFixtures.outcome($1, $0.token) }
        let rounds = 4
        final class Slots: @unchecked Sendable {
            let buffer: UnsafeMutableBufferPointer<String?>
            init(_ n: Int) { buffer = .allocate(capacity: n); buffer.initialize(repeating: "unset") }
            deinit { buffer.deinitialize(); buffer.deallocate() }
        }
        let slots = Slots(cases.count * rounds)
        let tokens = cases.map(\.token)
        DispatchQueue.concurrentPerform(iterations: tokens.count * rounds) { i in
            let k = (i * 7919) % tokens.count  // interleave the cases across threads
            slots.buffer[(i / tokens.count) * tokens.count + k] = AttackFixtures.outcome(verifiers[k], tokens[k])
        }
        let results = slots.buffer
        var mismatches = 0
        for r in 0..<rounds {
            for k in cases.indices where results[r * cases.count + k] != expected[k] {
                mismatches += 1
                if mismatches < 10 {
                    XCTFail(
                        "\(cases[k].name): concurrent \(results[r * cases.count + k] ?? "valid"), sequential \(expected[k] ?? "valid")"
                    )
                }
            }
        }
        XCTAssertEqual(mismatches, 0)
    }

    /// Oversize tokens are refused on their length alone, whatever they contain.
    func testOversizeIsDecidedBeforeDecoding() throws {
        let verifier = JWTVerifier(keys: try AttackFixtures.hmacKeys(), clock: FixedClock(AttackFixtures.now))
        for filler in ["!", ".", "A", "\u{0}", "é"] {
            let token = String(repeating: filler, count: JWTVerifier.defaultMaxTokenSize + 1)
            XCTAssertEqual(AttackFixtures.outcome(verifier, token), "too_large", "filler \(filler.debugDescription)")
        }
        // The limit is in bytes: 8193 two-byte characters are 16386 bytes.
        XCTAssertEqual(AttackFixtures.outcome(verifier, String(repeating: "é", count: 8193)), "too_large")
        XCTAssertEqual(
            AttackFixtures.outcome(verifier, String(repeating: "A", count: JWTVerifier.defaultMaxTokenSize)),
            "malformed")
        let tiny = JWTVerifier(
            keys: try AttackFixtures.hmacKeys(), clock: FixedClock(AttackFixtures.now), maxTokenSize: 10)
        XCTAssertEqual(AttackFixtures.outcome(tiny, "eyJhbGciOi.x.y"), "too_large")
    }

    /// With a verified-token cache, a second pass (served from the cache for
    /// the valid tokens) must end exactly like the first and like the fixtures.
    func testCachedVerifierGivesTheSameResults() throws {
        let cases = try AttackFixtures.cases()
        let factory = try AttackFixtures.VerifierFactory()
        let cache = VerifiedTokenCache()
        let verifiers = cases.map { c -> JWTVerifier in
            let plain = factory.verifier(for: c)
            return JWTVerifier(
                keys: plain.keys, policy: plain.policy, clock: plain.clock, maxTokenSize: plain.maxTokenSize,
                cache: cache)
        }
        for pass in 1...2 {
            for (c, verifier) in zip(cases, verifiers) {
                let got = AttackFixtures.outcome(verifier, c.token)
                if c.expect_valid {
                    XCTAssertNil(got, "pass \(pass): FALSE REJECT \(c.name)")
                } else {
                    XCTAssertTrue(
                        got.map { c.acceptableCodes.contains($0) } ?? false,
                        "pass \(pass): \(c.name) -> \(got ?? "valid")")
                }
            }
        }
        XCTAssertGreaterThan(cache.count, 0, "the valid tokens were cached")
        // A token cached as valid under one clock is re-checked under another.
        let c = cases.first { $0.name == "valid_ES256" }!
        let plain = factory.verifier(for: c)
        let later = JWTVerifier(
            keys: plain.keys, policy: plain.policy, clock: FixedClock(AttackFixtures.now + 7200), cache: cache)
        XCTAssertEqual(AttackFixtures.outcome(later, c.token), "expired")
    }
}
