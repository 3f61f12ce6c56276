import XCTest

@_spi(Internals) @testable import JWTKernel

/// Wycheproof RSASSA-PKCS1-v1_5 (RS256/384/512) and RSASSA-PSS (PS256/384/512)
/// vectors. Keys come from the group's DER SubjectPublicKeyInfo and are
/// cross-checked against the key from the group's JWK.
final class WycheproofRSATests: XCTestCase {
    // MARK: PKCS #1 v1.5

    /// The one `acceptable` vector in each PKCS #1 file (tcId 8, flag
    /// `MissingNull`) is a signature whose DigestInfo omits the NULL
    /// parameters of the hash AlgorithmIdentifier. RFC 8017 §9.2 note 2
    /// lets a verifier accept it; the kernel does not: OpenSSL compares the
    /// recovered encoding with the single canonical DER DigestInfo, and a
    /// verifier that accepts exactly one encoding per message leaves nothing
    /// to malleate. Every such vector is asserted rejected.
    private static let missingNullRejected = WycheproofAcceptablePolicy(
        kernelAccepts: false,
        why: "DigestInfo without the NULL parameters is not the canonical encoding; the kernel accepts only that one")

    func testRSA2048SHA256() throws {
        try runPKCS1("rsa_signature_2048_sha256_test.json", alg: .rs256, sha: "SHA-256", count: 259)
    }

    func testRSA2048SHA384() throws {
        try runPKCS1("rsa_signature_2048_sha384_test.json", alg: .rs384, sha: "SHA-384", count: 258)
    }

    func testRSA2048SHA512() throws {
        try runPKCS1("rsa_signature_2048_sha512_test.json", alg: .rs512, sha: "SHA-512", count: 259)
    }

    func testRSA3072SHA256() throws {
        try runPKCS1("rsa_signature_3072_sha256_test.json", alg: .rs256, sha: "SHA-256", count: 259)
    }

    func testRSA4096SHA512() throws {
        try runPKCS1("rsa_signature_4096_sha512_test.json", alg: .rs512, sha: "SHA-512", count: 259)
    }

    private func runPKCS1(_ name: String, alg: JWTAlgorithm, sha: String, count: Int, line: UInt = #line) throws {
        let file = try WycheproofFile(name)
        var jwkCrossChecks = 0
        let tally = Wycheproof.run(file, expectedCount: count, acceptable: Self.missingNullRejected, line: line) {
            group in
            // RSnnn fixes the hash; these files hold no group on another one.
            XCTAssertEqual(
                group.string("sha"), sha, "\(name) group \(group.index): a hash \(alg.rawValue) does not use",
                line: line)
            // All groups are at least 2048 bits, so none meets the kernel's size floor.
            XCTAssertGreaterThanOrEqual(
                group.int("keySize") ?? 0, VerificationKey.minimumRSABits, "\(name) group \(group.index)", line: line)
            return WycheproofPrimitive.publicKeyCheck(
                file: file, group: group, alg: alg, jwkCrossChecks: &jwkCrossChecks)
        }
        XCTAssertEqual(tally.acceptable, 1, "\(name): the MissingNull vector", line: line)
        XCTAssertEqual(jwkCrossChecks, count, "\(name): every group has a JWK to cross-check", line: line)
    }

    // MARK: PSS

    func testPSS2048SHA256MGF1Salt32() throws {
        try runPSS("rsa_pss_2048_sha256_mgf1_32_test.json", alg: .ps256, count: 108)
    }

    func testPSS2048SHA384MGF1Salt48() throws {
        try runPSS("rsa_pss_2048_sha384_mgf1_48_test.json", alg: .ps384, count: 141)
    }

    func testPSS4096SHA512MGF1Salt64() throws {
        try runPSS("rsa_pss_4096_sha512_mgf1_64_test.json", alg: .ps512, count: 179)
    }

    /// RFC 7518 §3.5 fixes everything but the key: PSnnn is SHA-nnn, MGF1
    /// with SHA-nnn, and a salt as long as the hash. A group with any other
    /// parameters is not a JWS algorithm; these three files hold none (the
    /// assertion below makes one fail loudly rather than be reinterpreted).
    private func runPSS(_ name: String, alg: JWTAlgorithm, count: Int, line: UInt = #line) throws {
        let file = try WycheproofFile(name)
        let sha = "SHA-\(alg.hashLength * 8)"
        var jwkCrossChecks = 0
        Wycheproof.run(file, expectedCount: count, line: line) { group in
            let params =
                "\(group.string("sha") ?? "?"), \(group.string("mgf") ?? "?") \(group.string("mgfSha") ?? "?"), salt \(group.int("sLen") ?? -1)"
            XCTAssertEqual(
                params, "\(sha), MGF1 \(sha), salt \(alg.hashLength)",
                "\(name) group \(group.index): parameters \(alg.rawValue) cannot express", line: line)
            XCTAssertGreaterThanOrEqual(
                group.int("keySize") ?? 0, VerificationKey.minimumRSABits, "\(name) group \(group.index)", line: line)
            return WycheproofPrimitive.publicKeyCheck(
                file: file, group: group, alg: alg, jwkCrossChecks: &jwkCrossChecks)
        }
        XCTAssertEqual(jwkCrossChecks, count, "\(name): every group has a JWK to cross-check", line: line)
    }
}
