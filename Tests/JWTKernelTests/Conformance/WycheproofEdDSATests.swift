import XCTest

@_spi(Internals) @testable import JWTKernel

/// Wycheproof EdDSA vectors (RFC 8032 pure Ed25519 and Ed448, as RFC 8037
/// uses them). Each vector is verified under the fully-specified name
/// (RFC 9864 `Ed25519` / `Ed448`) and must give the same outcome under the
/// polymorphic `EdDSA`. Keys come from DER and are cross-checked against the
/// group's JWK.
final class WycheproofEdDSATests: XCTestCase {
    func testEd25519() throws {
        try runEdDSA("ed25519_test.json", alg: .ed25519, count: 151)
    }

    func testEd448() throws {
        try runEdDSA("ed448_test.json", alg: .ed448, count: 87)
    }

    private func runEdDSA(_ name: String, alg: JWTAlgorithm, count: Int, line: UInt = #line) throws {
        let file = try WycheproofFile(name)
        var jwkCrossChecks = 0
        var polymorphicChecks = 0
        Wycheproof.run(file, expectedCount: count, line: line) { group in
            let check = WycheproofPrimitive.publicKeyCheck(
                file: file, group: group, alg: alg, jwkCrossChecks: &jwkCrossChecks)
            let key = try? WycheproofPrimitive.keyFromDER(group).get()
            return { vector in
                let outcome = check(vector)
                if let key {
                    let polymorphic = WycheproofPrimitive.verify(
                        .edDSA, key: key, message: vector.hex("msg"), signature: vector.hex("sig"),
                        label: "\(name) \(vector.label) (EdDSA)")
                    XCTAssertEqual(
                        polymorphic.isAccepted, outcome.isAccepted,
                        "\(name) \(vector.label): \(alg.rawValue) \(outcome), EdDSA \(polymorphic)", line: line)
                    polymorphicChecks += 1
                }
                return outcome
            }
        }
        XCTAssertEqual(jwkCrossChecks, count, "\(name): every group has a JWK to cross-check", line: line)
        XCTAssertEqual(polymorphicChecks, count, "\(name): every vector also checked as EdDSA", line: line)
    }
}
