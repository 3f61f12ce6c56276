import XCTest

@_spi(Internals) @testable import JWTKernel

/// A thread keeps prepared OpenSSL contexts for a bounded number of (key, alg)
/// pairs (`PKeyContextCache`). A gateway with more keys in use than that
/// evicts and rebuilds contexts all the time; verdicts must not change.
final class PreparedContextEvictionTests: XCTestCase {
    func testVerdictsHoldWhileMoreKeysThanTheCacheHoldsAreInUse() throws {
        let cases = try AttackFixtures.cases().filter {
            $0.jwks == "public" && $0.policy == nil
                && ["RS256", "PS256", "ES256"].contains($0.headerAlg ?? "")
        }
        let valid = cases.filter(\.expect_valid)
        let invalid = cases.filter { !$0.expect_valid }
        XCTAssertFalse(valid.isEmpty)
        XCTAssertFalse(invalid.isEmpty)

        // Each verifier gets its own parse of the key set: distinct EVP_PKEYs, so
        // distinct cache entries; 1.5x the capacity forces evictions in every set.
        let verifierCount = PKeyContextCache.capacity * 3 / 2
        let policy = AttackFixtures.claimsPolicy(nil)
        let verifiers = try (0..<verifierCount).map { _ in
            JWTVerifier(
                keys: try AttackFixtures.publicKeys(), policy: policy, clock: FixedClock(AttackFixtures.now))
        }
        for round in 0..<2 {
            for (i, verifier) in verifiers.enumerated() {
                let good = valid[(i + round) % valid.count]
                XCTAssertNil(AttackFixtures.outcome(verifier, good.token), "\(good.name), verifier \(i)")
                let bad = invalid[(i + round) % invalid.count]
                XCTAssertNotNil(AttackFixtures.outcome(verifier, bad.token), "\(bad.name), verifier \(i)")
            }
        }
    }
}
