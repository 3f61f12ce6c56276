import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

/// Refusals that protect against keys that look valid: several keys under one
/// `kid`, and RSA keys from the broken ROCA generator. Tests assert the code.
final class KeyRefusalCodeTests: XCTestCase {
    func jwk(_ name: String) throws -> [String: Any] {
        try KeySetTests.jwk(name)
    }

    func testDifferentKeysUnderOneKidAreAllRefused() throws {
        var a = try jwk("p256a"), b = try jwk("p256b")
        a["kid"] = "same"
        b["kid"] = "same"
        let set = try KeyKit.set([a, b, try jwk("rsa2048")])
        XCTAssertEqual(set.keys.map(\.kid), ["rsa-2048"])
        XCTAssertEqual(set.rejected.map(\.code), [.ambiguousKid, .ambiguousKid])
        XCTAssertEqual(set.rejected.map(\.kid), ["same", "same"])
    }

    func testTheSameKeyTwiceCollapsesToOne() throws {
        let a = try jwk("p256a")
        let set = try KeyKit.set([a, a])
        XCTAssertEqual(set.keys.count, 1)
        XCTAssertEqual(set.rejected, [])
    }

    func testAKidSharedWithARefusedKeyIsAmbiguous() throws {
        var weak = try jwk("rsa1024"), good = try jwk("rsa2048")
        weak["kid"] = "k"
        good["kid"] = "k"
        let set = try KeyKit.set([weak, good])
        XCTAssertEqual(set.keys.count, 0)
        XCTAssertEqual(Set(set.rejected.map(\.code)), [.weakKey, .ambiguousKid])
    }

    func testROCAFingerprintedModulusIsRefused() throws {
        // Fixtures/roca/generate.py: a 2048-bit modulus built the way the flawed Infineon library built them.
        let roca = try KeyKit.object("roca/roca-jwk.json")
        XCTAssertEqual(KeyKit.refusal(roca)?.code, .compromisedKey)
        // A modulus from an ordinary generator of the same size loads.
        XCTAssertNoThrow(try KeyKit.key(try jwk("rsa2048")))
    }

    func testDocumentsThatAreNotKeySetsSayWhy() {
        for text in ["[]", "{\"keys\":{}}", "{\"a\":1}", "not json", "{}"] {
            do {
                _ = try JWKSet(json: Array(text.utf8))
                XCTFail("\(text) loaded")
            } catch {
                XCTAssertEqual(error.code, .notAKeySet, text)
            }
        }
    }

    func testADeclaredEdDSANamePinsThatNameOnly() throws {
        // Differential finding F2 (docs/DIFFERENCES.md): the declared alg is enforced, not widened to its RFC 9864 alias.
        var jwk = try jwk("ed25519")
        jwk["alg"] = nil
        XCTAssertEqual(try KeyKit.key(jwk).algorithms, AlgorithmSet([.edDSA, .ed25519]))
        jwk["alg"] = "EdDSA"
        XCTAssertEqual(try KeyKit.key(jwk).algorithms, AlgorithmSet([.edDSA]))
        jwk["alg"] = "Ed25519"
        XCTAssertEqual(try KeyKit.key(jwk).algorithms, AlgorithmSet([.ed25519]))
        jwk["alg"] = "Ed448"
        XCTAssertEqual(KeyKit.refusal(jwk)?.code, .algorithmMismatch)
    }
}
