import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

/// Key loading and key selection, with test keys generated once by
/// Fixtures/keys/generate.py (pyca/cryptography) and tokens signed by them.
/// Every token carries iss https://issuer.example, aud jwt-kernel-tests,
/// iat 1700000000 and exp 1700003600.
final class KeySetTests: XCTestCase {
    static let now: Int64 = 1_700_000_001
    static let policy = ClaimsPolicy(issuers: ["https://issuer.example"], audiences: ["jwt-kernel-tests"])

    static func jwk(_ name: String) throws -> [String: Any] {
        let jwks = try XCTUnwrap(try KeyKit.object("keys/keys.json")["jwk"] as? [String: [String: Any]])
        return try XCTUnwrap(jwks[name], "no test key \(name)")
    }

    static func pem(_ name: String) throws -> String {
        let pems = try XCTUnwrap(try KeyKit.object("keys/keys.json")["pem"] as? [String: String])
        return try XCTUnwrap(pems[name], "no test PEM \(name)")
    }

    static func token(_ name: String) throws -> String {
        let tokens = try XCTUnwrap(try KeyKit.object("keys/tokens.json")["tokens"] as? [String: String])
        return try XCTUnwrap(tokens[name], "no test token \(name)")
    }

    static func set(_ names: [String]) throws -> JWKSet { try KeyKit.set(try names.map(jwk)) }

    /// Asserts that the named token fails with `code` against `keys`.
    static func expect(
        _ code: JWTErrorCode, _ tokenName: String, with keys: JWKSet,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let token = try self.token(tokenName)
        let verifier = self.verifier(keys)
        KeyKit.expect(code, tokenName, file: file, line: line) { _ = try verifier.verify(token) }
    }

    static func verifier(_ keys: JWKSet) -> JWTVerifier {
        JWTVerifier(keys: keys, policy: policy, clock: FixedClock(now))
    }

    func testFixtureKeysAreTheKindsTheirNamesSay() throws {
        XCTAssertEqual(try KeyKit.key(try Self.jwk("rsa2048")).type, .rsa(bits: 2048))
        XCTAssertEqual(try KeyKit.key(try Self.jwk("p256a")).type, .ec(.p256))
        XCTAssertEqual(try KeyKit.key(try Self.jwk("p256b")).type, .ec(.p256))
        XCTAssertEqual(try KeyKit.key(try Self.jwk("ed25519")).type, .okp(.ed25519))
        XCTAssertEqual(try KeyKit.key(try Self.jwk("hmac32")).type, .oct(bytes: 32))
        XCTAssertEqual(try KeyKit.key(try Self.jwk("rsa2048")).algorithms, AlgorithmSet([.rs256]))
        XCTAssertEqual(try KeyKit.key(try Self.jwk("rsa2048NoAlg")).algorithms, .rsa)
    }

    func testEveryAlgorithmFamilyVerifies() throws {
        let cases: [(token: String, key: String, alg: JWTAlgorithm)] = [
            ("rs256", "rsa2048", .rs256), ("ps256AnyKid", "rsa2048NoAlg", .ps256), ("es256A", "p256a", .es256),
            ("es256B", "p256b", .es256), ("eddsa", "ed25519", .edDSA), ("hs256", "hmac32", .hs256),
        ]
        for c in cases {
            do {
                let jwt = try Self.verifier(try Self.set([c.key])).verify(try Self.token(c.token))
                XCTAssertEqual(jwt.algorithm, c.alg, c.token)
                XCTAssertEqual(jwt.subject, "user-1", c.token)
                XCTAssertEqual(jwt.key.kid, try Self.jwk(c.key)["kid"] as? String, c.token)
            } catch {
                XCTFail("\(c.token): \(error)")
            }
            let forged = KeyKit.flippingSignatureBit(try Self.token(c.token))
            let verifier = Self.verifier(try Self.set([c.key]))
            KeyKit.expect(.badSignature, c.token) { _ = try verifier.verify(forged) }
        }
    }

    // MARK: Refused at load

    func testRSA1024IsRefusedWithAClearReason() throws {
        let error = try XCTUnwrap(KeyKit.refusal(try Self.jwk("rsa1024")))
        XCTAssertEqual(error.kid, "rsa-1024")
        XCTAssertEqual(error.code, .weakKey)
        XCTAssertEqual(error.description, "key \"rsa-1024\": RSA key has 1024 bits; at least 2048 are required")

        let set = try Self.set(["rsa1024"])
        XCTAssertEqual(set.keys.count, 0)
        XCTAssertEqual(set.rejected, [error])
        try Self.expect(.unknownKid, "rs256By1024", with: set)

        // The same key as PEM, alone and in a {kid: PEM} map.
        XCTAssertThrowsError(try VerificationKey(pem: try Self.pem("rsa1024PublicKey"), kid: "pem-weak")) { error in
            XCTAssertEqual((error as? KeyError)?.kid, "pem-weak")
            XCTAssertEqual((error as? KeyError)?.code, .weakKey, "\(error)")
        }
    }

    func testHMACSecretShorterThan32BytesIsRefused() throws {
        XCTAssertThrowsError(try VerificationKey(hmacSecret: Array(repeating: 7, count: 31), kid: "short")) { error in
            let error = error as? KeyError
            XCTAssertEqual(error?.kid, "short")
            XCTAssertEqual(error?.code, .weakKey)
        }
        XCTAssertThrowsError(try VerificationKey(hmacSecret: []))
        XCTAssertNoThrow(try VerificationKey(hmacSecret: Array(repeating: 7, count: 32)))
        // A 32-byte secret cannot be pinned to HS384 or HS512 (RFC 7518 §3.2: key >= hash output).
        XCTAssertThrowsError(try VerificationKey(hmacSecret: Array(repeating: 7, count: 32), algorithm: .hs384))
        XCTAssertThrowsError(try VerificationKey(hmacSecret: Array(repeating: 7, count: 63), algorithm: .hs512))
        XCTAssertEqual(
            try VerificationKey(hmacSecret: Array(repeating: 7, count: 48)).algorithms, AlgorithmSet([.hs256, .hs384]))

        let error = try XCTUnwrap(KeyKit.refusal(try Self.jwk("hmac31")))
        XCTAssertEqual(error.kid, "hmac-31")
        XCTAssertEqual(error.code, .weakKey)

        let set = try Self.set(["hmac31", "hmac32"])
        XCTAssertEqual(set.keys.map(\.kid), ["hmac-32"])
        XCTAssertEqual(set.rejected.map(\.kid), ["hmac-31"])
        XCTAssertNoThrow(try Self.verifier(set).verify(try Self.token("hs256")))
        try Self.expect(.unknownKid, "hs256Short", with: set)
    }

    func testUseEncIsRefused() throws {
        let error = try XCTUnwrap(KeyKit.refusal(try Self.jwk("p256aUseEnc")))
        XCTAssertEqual(error.kid, "ec-a-enc")
        XCTAssertEqual(error.code, .wrongUse)
        let set = try Self.set(["p256aUseEnc"])
        XCTAssertEqual(set.rejected.map(\.kid), ["ec-a-enc"])
        try Self.expect(.unknownKid, "es256KidEnc", with: set)
    }

    func testKeyOpsWithoutVerifyIsRefused() throws {
        let error = try XCTUnwrap(KeyKit.refusal(try Self.jwk("p256aKeyOpsSign")))
        XCTAssertEqual(error.kid, "ec-a-sign-only")
        XCTAssertEqual(error.code, .wrongUse)
        var encrypt = try Self.jwk("p256aKeyOpsSign")
        encrypt["key_ops"] = ["encrypt", "wrapKey"]
        XCTAssertEqual(KeyKit.refusal(encrypt)?.code, .wrongUse)
        var empty = try Self.jwk("p256aKeyOpsSign")
        empty["key_ops"] = [String]()
        XCTAssertEqual(KeyKit.refusal(empty)?.code, .wrongUse)
        var notArray = try Self.jwk("p256aKeyOpsSign")
        notArray["key_ops"] = "verify"
        XCTAssertEqual(KeyKit.refusal(notArray)?.code, .malformed)

        // key_ops that include verify are fine.
        let key = try KeyKit.key(try Self.jwk("p256aKeyOpsVerify"))
        XCTAssertNoThrow(try Self.verifier(JWKSet(keys: [key])).verify(try Self.token("es256ANoKid")))
    }

    func testECPointNotOnTheCurveIsRefused() throws {
        let good = try Self.jwk("p256a")
        let bad = try Self.jwk("p256OffCurve")
        XCTAssertEqual(good["x"] as? String, bad["x"] as? String)
        let goodY = try XCTUnwrap(KeyKit.base64URLDecode(Substring(good["y"] as! String)))
        let badY = try XCTUnwrap(KeyKit.base64URLDecode(Substring(bad["y"] as! String)))
        XCTAssertEqual(goodY.count, 32)
        XCTAssertEqual(zip(goodY, badY).filter { $0 != $1 }.count, 1, "exactly one byte of y differs")

        let error = try XCTUnwrap(KeyKit.refusal(bad))
        XCTAssertEqual(error.kid, "ec-off-curve")
        XCTAssertEqual(error.code, .malformed)
        let set = try Self.set(["p256OffCurve"])
        XCTAssertEqual(set.keys.count, 0)
        try Self.expect(.unknownKid, "es256KidOffCurve", with: set)
    }

    func testMalformedJWKsAreRefusedWithReasons() throws {
        var noY = try Self.jwk("p256a"); noY["y"] = nil
        XCTAssertEqual(KeyKit.refusal(noY)?.code, .malformed)
        var shortX = try Self.jwk("p256a"); shortX["x"] = String((shortX["x"] as! String).dropLast(2))
        XCTAssertEqual(KeyKit.refusal(shortX)?.code, .malformed)
        var padded = try Self.jwk("rsa2048"); padded["e"] = "AQAB=="
        XCTAssertEqual(KeyKit.refusal(padded)?.code, .malformed)
        var unknownAlg = try Self.jwk("rsa2048"); unknownAlg["alg"] = "RSA-OAEP"
        XCTAssertEqual(KeyKit.refusal(unknownAlg)?.code, .unsupportedType)
        var wrongAlg = try Self.jwk("p256a"); wrongAlg["alg"] = "ES384"
        XCTAssertEqual(KeyKit.refusal(wrongAlg)?.code, .algorithmMismatch)
        var noKty = try Self.jwk("p256a"); noKty["kty"] = nil
        XCTAssertEqual(KeyKit.refusal(noKty)?.code, .malformed)
        var x25519 = try Self.jwk("ed25519"); x25519["crv"] = "X25519"
        XCTAssertEqual(KeyKit.refusal(x25519)?.code, .unsupportedType)
    }

    // MARK: A key set is forgiving per key

    func testOneBadKeyDoesNotPoisonTheSet() throws {
        let set = try Self.set([
            "rsa2048", "rsa1024", "p256OffCurve", "p256aUseEnc", "p256aKeyOpsSign", "p256a", "hmac32",
        ])
        XCTAssertEqual(set.keys.map(\.kid), ["rsa-2048", "ec-a"])
        // Per-key refusals in document order, then the secret that cannot sit beside public keys.
        XCTAssertEqual(set.rejected.map(\.kid), ["rsa-1024", "ec-off-curve", "ec-a-enc", "ec-a-sign-only", "hmac-32"])
        XCTAssertEqual(set.rejected.map(\.code), [.weakKey, .malformed, .wrongUse, .wrongUse, .mixedKeyTypes])

        let verifier = Self.verifier(set)
        XCTAssertNoThrow(try verifier.verify(try Self.token("rs256")))
        XCTAssertNoThrow(try verifier.verify(try Self.token("es256A")))
        for refused in ["rs256By1024", "es256KidOffCurve", "es256KidEnc", "hs256"] {
            try Self.expect(.unknownKid, refused, with: set)
        }
    }

    func testRejectedKeysAreIndexedWhenTheyHaveNoKid() throws {
        var anonymous = try Self.jwk("rsa1024")
        anonymous["kid"] = nil
        let set = try KeyKit.set([try Self.jwk("p256a"), anonymous])
        XCTAssertEqual(set.keys.count, 1)
        XCTAssertEqual(set.rejected.map(\.kid), ["#1"])
    }

    func testDocumentsThatAreNotKeySetsThrow() throws {
        XCTAssertThrowsError(try JWKSet(json: Array("[]".utf8)))
        XCTAssertThrowsError(try JWKSet(json: Array("{\"keys\":{}}".utf8)))
        XCTAssertThrowsError(try JWKSet(json: Array("{\"hello\":\"world\"}".utf8)))
        XCTAssertThrowsError(try JWKSet(json: Array("{\"keys\":[]".utf8)))
        XCTAssertEqual(try JWKSet(json: Array("{\"keys\":[]}".utf8)).keys.count, 0)
        // A single JWK is a set of one.
        let single = try JWKSet(json: try KeyKit.bytes(try Self.jwk("p256a")))
        XCTAssertEqual(single.keys.map(\.kid), ["ec-a"])
    }

    // MARK: Selection by kid and alg

    func testAlgNotFittingTheKeyNamedByKidIsKeyAlgMismatch() throws {
        let verifier = Self.verifier(try Self.set(["rsa2048", "p256a"]))
        // kid names the EC key, alg is RS256.
        try Self.expect(.keyAlgMismatch, "rs256KidECA", with: verifier.keys)
        // kid names an RSA key pinned to RS256 by its "alg", token is PS256 (validly signed by that key).
        try Self.expect(.keyAlgMismatch, "ps256KidRSA2048", with: verifier.keys)
        // Without "alg" on the key, the same RSA key verifies PS256 and RS256.
        let open = Self.verifier(try Self.set(["rsa2048NoAlg"]))
        XCTAssertNoThrow(try open.verify(try Self.token("ps256AnyKid")))
        XCTAssertNoThrow(try open.verify(try Self.token("rs256AnyKid")))
    }

    func testNoKidAndExactlyOneFittingKeyVerifies() throws {
        let set = try Self.set(["rsa2048", "p256a", "ed25519"])
        let jwt = try Self.verifier(set).verify(try Self.token("es256ANoKid"))
        XCTAssertNil(jwt.kid)
        XCTAssertEqual(jwt.key.kid, "ec-a")
        // HMAC: the one secret of a secrets-only set.
        XCTAssertNoThrow(try Self.verifier(try Self.set(["hmac32"])).verify(try Self.token("hs256NoKid")))
    }

    func testNoKidAndTwoFittingKeysIsUnknownKid() throws {
        let verifier = Self.verifier(try Self.set(["p256a", "p256b"]))
        try Self.expect(.unknownKid, "es256ANoKid", with: verifier.keys)
        // Both keys still verify their own tokens by kid.
        XCTAssertNoThrow(try verifier.verify(try Self.token("es256A")))
        XCTAssertNoThrow(try verifier.verify(try Self.token("es256B")))
    }

    func testNoKidAndNoFittingKeyIsUnknownKid() throws {
        try Self.expect(.unknownKid, "es256ANoKid", with: try Self.set(["rsa2048"]))
    }

    func testUnknownKidIsUnknownKid() throws {
        let verifier = Self.verifier(try Self.set(["p256a", "p256b"]))
        try Self.expect(.unknownKid, "es256UnknownKid", with: verifier.keys)
        // A kid never falls back to another key, even when exactly one key would fit.
        try Self.expect(.unknownKid, "es256UnknownKid", with: try Self.set(["p256a"]))
    }

    func testMergedSetsSelectAcrossBoth() throws {
        let merged = try Self.set(["rsa2048", "rsa1024"]).merging(try Self.set(["p256a"]))
        XCTAssertEqual(merged.keys.map(\.kid), ["rsa-2048", "ec-a"])
        XCTAssertEqual(merged.rejected.map(\.kid), ["rsa-1024"])
        XCTAssertNoThrow(try Self.verifier(merged).verify(try Self.token("rs256")))
        XCTAssertNoThrow(try Self.verifier(merged).verify(try Self.token("es256A")))
    }

    // MARK: {kid: PEM}

    func testKidPEMMapLoads() throws {
        let map: [String: String] = [
            "pem-rsa": try Self.pem("rsa2048Certificate"),
            "pem-ec": try Self.pem("p256aPublicKey"),
        ]
        let set = try JWKSet(json: try KeyKit.bytes(map))
        XCTAssertEqual(set.rejected, [])
        XCTAssertEqual(Set(set.keys.compactMap(\.kid)), ["pem-rsa", "pem-ec"])
        let verifier = Self.verifier(set)
        XCTAssertEqual(try verifier.verify(try Self.token("rs256PemKid")).key.type, .rsa(bits: 2048))
        XCTAssertEqual(try verifier.verify(try Self.token("es256PemKid")).key.type, .ec(.p256))
        // The JWK kids are not in this set.
        try Self.expect(.unknownKid, "rs256", with: verifier.keys)
    }

    func testKidPEMMapWithAWeakKeyKeepsTheRest() throws {
        let map: [String: String] = [
            "pem-rsa": try Self.pem("rsa2048Certificate"),
            "pem-weak": try Self.pem("rsa1024PublicKey"),
        ]
        let set = try JWKSet(json: try KeyKit.bytes(map))
        XCTAssertEqual(set.keys.map(\.kid), ["pem-rsa"])
        XCTAssertEqual(set.rejected.map(\.kid), ["pem-weak"])
        XCTAssertEqual(set.rejected.first?.code, .weakKey, "\(set.rejected)")
        XCTAssertNoThrow(try Self.verifier(set).verify(try Self.token("rs256PemKid")))
    }

    func testKidPEMMapWithABrokenPEMKeepsTheRest() throws {
        let certificate = try Self.pem("rsa2048Certificate")
        let broken = certificate.replacingOccurrences(
            of: "\n", with: "\nAAAA", options: [], range: certificate.range(of: "\n"))
        let set = try JWKSet(json: try KeyKit.bytes(["pem-rsa": certificate, "pem-broken": broken]))
        XCTAssertEqual(set.keys.map(\.kid), ["pem-rsa"])
        XCTAssertEqual(set.rejected.map(\.kid), ["pem-broken"])
        XCTAssertEqual(set.rejected.map(\.code), [.invalidCertificate])
    }
}
