import XCTest

@_spi(Internals) @testable import JWTKernel

/// Wycheproof ECDSA vectors in IEEE P1363 form (fixed-length `r || s`),
/// which is exactly the JWS encoding (RFC 7518 §3.4, RFC 8812 for ES256K).
/// The key comes from the group's DER SubjectPublicKeyInfo and, where the
/// group has one, is cross-checked against the key from its JWK.
final class WycheproofECDSATests: XCTestCase {
    func testSecp256r1SHA256() throws {
        try runECDSA("ecdsa_secp256r1_sha256_p1363_test.json", alg: .es256, sha: "SHA-256", count: 262)
    }

    func testSecp384r1SHA384() throws {
        try runECDSA("ecdsa_secp384r1_sha384_p1363_test.json", alg: .es384, sha: "SHA-384", count: 280)
    }

    func testSecp521r1SHA512() throws {
        try runECDSA("ecdsa_secp521r1_sha512_p1363_test.json", alg: .es512, sha: "SHA-512", count: 318)
    }

    func testSecp256k1SHA256() throws {
        try runECDSA("ecdsa_secp256k1_sha256_p1363_test.json", alg: .es256k, sha: "SHA-256", count: 252)
    }

    private func runECDSA(
        _ name: String, alg: JWTAlgorithm, sha: String, count: Int,
        line: UInt = #line
    ) throws {
        let file = try WycheproofFile(name)
        var jwkCrossChecks = 0
        Wycheproof.run(file, expectedCount: count, line: line) { group in
            // Each JWS ECDSA algorithm fixes the hash, so a group on another
            // hash could not be expressed as a JWS. These files have none;
            // should one appear, this fails instead of passing it silently.
            XCTAssertEqual(
                group.string("sha"), sha, "\(name) group \(group.index): a hash \(alg.rawValue) does not use",
                line: line)
            return WycheproofPrimitive.publicKeyCheck(
                file: file, group: group, alg: alg, jwkCrossChecks: &jwkCrossChecks)
        }
        XCTAssertGreaterThan(jwkCrossChecks, 0, "\(name): no vector was cross-checked with a JWK key", line: line)
        print("Wycheproof \(name): \(jwkCrossChecks) vectors also checked with the key from the group's JWK")
    }
}
