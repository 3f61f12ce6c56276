import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

/// Algorithm confusion (RFC 8725 §2.1, §3.1): an HMAC tag keyed with bytes of
/// a public key the verifier trusts must never verify, however the trusted key
/// was loaded. Tokens here are minted in Swift with OpenSSL's HMAC.
final class AttackKeyConfusionTests: XCTestCase {
    let now = AttackFixtures.now

    func claims() -> String {
        "{\"iss\":\"\(AttackFixtures.issuer)\",\"aud\":\"\(AttackFixtures.audience)\",\"exp\":\(now + 3600)}"
    }

    func verifier(_ keys: JWKSet) -> JWTVerifier {
        JWTVerifier(keys: keys, policy: ClaimsPolicy(), clock: FixedClock(now))
    }

    func rsaPEM() throws -> String { try String(decoding: Fixtures.data("attacks/rsa-1.pub.pem"), as: UTF8.self) }

    /// Every byte string an attacker could take for "the public key".
    func publicKeySecrets() throws -> [(String, [UInt8])] {
        let pem = try rsaPEM()
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let der = Array(Data(base64Encoded: body)!)
        let jwks = try Fixtures.json("attacks/jwks.json") as! [String: Any]
        let rsaJWK = (jwks["keys"] as! [[String: Any]]).first { $0["kid"] as? String == "rsa-1" }!
        let modulus = Base64URL.decode(rsaJWK["n"] as! String)!
        return [
            ("pem", Array(pem.utf8)),
            ("pem without final newline", Array(pem.trimmingCharacters(in: .newlines).utf8)),
            ("pem with CRLF", Array(pem.replacingOccurrences(of: "\n", with: "\r\n").utf8)),
            ("der", der),
            ("base64 body", Array(body.utf8)),
            ("modulus", modulus),
            ("jwk json", Array(try JSONSerialization.data(withJSONObject: rsaJWK, options: [.sortedKeys]))),
        ]
    }

    func assertRejected(
        _ verifier: JWTVerifier, kid: String?, accepted: Set<JWTErrorCode>,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        for (label, secret) in try publicKeySecrets() {
            for alg in [JWTAlgorithm.hs256, .hs384, .hs512] {
                let header =
                    kid.map { "{\"alg\":\"\(alg.rawValue)\",\"kid\":\"\($0)\"}" } ?? "{\"alg\":\"\(alg.rawValue)\"}"
                let token = AttackSigner.token(header: header, claims: claims(), alg: alg, key: secret)
                do {
                    _ = try verifier.verify(token)
                    XCTFail(
                        "FALSE ACCEPT: \(alg.rawValue) keyed with the RSA public key (\(label)), kid \(kid ?? "none")",
                        file: file, line: line)
                } catch {
                    XCTAssertTrue(
                        accepted.contains(error.code), "\(alg.rawValue) \(label): \(error)", file: file, line: line)
                }
            }
        }
    }

    func testSignerMatchesTheKernelsHMAC() throws {
        // Guard for the helper itself: a token it signs with a trusted secret verifies.
        let secret = [UInt8](repeating: 7, count: 64)
        let keys = JWKSet(keys: [try VerificationKey(hmacSecret: secret, kid: "h")])
        for alg in [JWTAlgorithm.hs256, .hs384, .hs512] {
            let token = AttackSigner.token(
                header: "{\"alg\":\"\(alg.rawValue)\",\"kid\":\"h\"}", claims: claims(), alg: alg, key: secret)
            XCTAssertEqual(try verifier(keys).verify(token).algorithm, alg)
        }
    }

    func testJWKSWithTheRSAKey() throws {
        let keys = try AttackFixtures.publicKeys()
        try assertRejected(verifier(keys), kid: "rsa-1", accepted: [.keyAlgMismatch])
        try assertRejected(verifier(keys), kid: nil, accepted: [.unknownKid])
    }

    func testPEMKeyWithoutKid() throws {
        let keys = JWKSet(keys: [try VerificationKey(pem: rsaPEM())])
        try assertRejected(verifier(keys), kid: nil, accepted: [.unknownKid, .keyAlgMismatch])
        try assertRejected(verifier(keys), kid: "rsa-1", accepted: [.unknownKid, .keyAlgMismatch])
    }

    func testPEMKeyWithKidAndDeclaredAlgorithm() throws {
        let keys = JWKSet(keys: [try VerificationKey(pem: rsaPEM(), kid: "rsa-1", algorithm: .rs256)])
        try assertRejected(verifier(keys), kid: "rsa-1", accepted: [.keyAlgMismatch])
    }

    func testSPKIKey() throws {
        let secrets = try publicKeySecrets()
        let der = secrets.first { $0.0 == "der" }!.1
        let keys = JWKSet(keys: [try VerificationKey(spkiDER: der, kid: "rsa-1")])
        try assertRejected(verifier(keys), kid: "rsa-1", accepted: [.keyAlgMismatch])
    }

    func testKidToPEMMap() throws {
        let map = try JSONSerialization.data(withJSONObject: ["rsa-1": try rsaPEM()])
        let keys = try JWKSet(json: map)
        XCTAssertEqual(keys.keys.count, 1)
        try assertRejected(verifier(keys), kid: "rsa-1", accepted: [.keyAlgMismatch])
    }

    /// A key set built in code may hold secrets and public keys side by side:
    /// the kid still pins the algorithm family.
    func testProgrammaticMixedSetStillPinsByKid() throws {
        let keys = JWKSet(keys: [
            try VerificationKey(pem: rsaPEM(), kid: "rsa-1"),
            try VerificationKey(hmacSecret: [UInt8](repeating: 1, count: 32), kid: "hmac"),
        ])
        try assertRejected(verifier(keys), kid: "rsa-1", accepted: [.keyAlgMismatch])
        // Without a kid, the HMAC key is the single key for HS256: the tag keyed with the PEM fails on the signature.
        try assertRejected(verifier(keys), kid: nil, accepted: [.badSignature, .unknownKid])
    }

    /// A published key set mixing a secret with public keys keeps the public keys
    /// only, so the secret cannot be used at all (see JWKSet).
    func testSecretInAPublicKeySetIsDropped() throws {
        var jwks = try Fixtures.json("attacks/jwks.json") as! [String: Any]
        let secret = [UInt8](repeating: 0x42, count: 32)
        jwks["keys"] = (jwks["keys"] as! [Any]) + [["kty": "oct", "kid": "leaked", "k": Base64URL.encode(secret)]]
        let keys = try JWKSet(json: try JSONSerialization.data(withJSONObject: jwks))
        XCTAssertFalse(keys.keys.contains { $0.kid == "leaked" })
        XCTAssertTrue(keys.rejected.contains { $0.kid == "leaked" }, "\(keys.rejected)")
        for (header, expected) in [
            ("{\"alg\":\"HS256\",\"kid\":\"leaked\"}", JWTErrorCode.unknownKid), ("{\"alg\":\"HS256\"}", .unknownKid),
        ] {
            let token = AttackSigner.token(header: header, claims: claims(), key: secret)
            XCTAssertThrowsError(try verifier(keys).verify(token)) {
                XCTAssertEqual(($0 as! JWTError).code, expected, header)
            }
        }
    }

    /// A secret is still refused when every public key beside it is refused too (encryption-only, too small):
    /// publishing it made it public whatever happened to its neighbours.
    func testSecretBesideOnlyRefusedPublicKeysIsStillRefused() throws {
        let secret = [UInt8](repeating: 0x42, count: 32)
        let rsa = (try Fixtures.json("attacks/jwks.json") as! [String: Any])["keys"] as! [[String: Any]]
        var encryptionOnly = rsa[0]
        encryptionOnly["use"] = "enc"
        for neighbours in [
            [encryptionOnly], [["kty": "RSA", "kid": "broken", "n": "AQAB", "e": "AQAB"]], [["kty": "EC"]],
        ] {
            let document: [String: Any] = [
                "keys": neighbours + [["kty": "oct", "kid": "leaked", "k": Base64URL.encode(secret)]]
            ]
            let keys = try JWKSet(json: try JSONSerialization.data(withJSONObject: document))
            XCTAssertEqual(keys.keys.count, 0, "\(neighbours)")
            XCTAssertTrue(
                keys.rejected.contains { $0.kid == "leaked" && $0.code == .mixedKeyTypes }, "\(keys.rejected)")
            let token = AttackSigner.token(header: #"{"alg":"HS256","kid":"leaked"}"#, claims: claims(), key: secret)
            XCTAssertThrowsError(try verifier(keys).verify(token)) {
                XCTAssertEqual(($0 as! JWTError).code, .unknownKid)
            }
        }
        // A document of secrets only is a secret key set, and loads.
        let secretsOnly = try JWKSet(
            json: Array(#"{"keys":[{"kty":"oct","kid":"s","k":"\#(Base64URL.encode(secret))"}]}"#.utf8))
        XCTAssertEqual(secretsOnly.keys.map(\.kid), ["s"])
    }

    /// A nested verification from inside the callback (same thread) must not
    /// clobber the outer token's decoded bytes in the per-thread scratch buffer.
    func testNestedVerificationKeepsTheOuterTokenIntact() throws {
        let cases = try AttackFixtures.cases()
        let factory = try AttackFixtures.VerifierFactory()
        let outer = cases.first { $0.name == "valid_HS512" }!
        let inner = cases.first { $0.name == "valid_RS256" }!
        let outerVerifier = factory.verifier(for: outer)
        let innerVerifier = factory.verifier(for: inner)
        var token = outer.token
        let (before, innerResult, after) = try token.withUTF8 { utf8 in
            try outerVerifier.verify(UnsafeRawBufferPointer(utf8)) { verified -> ([UInt8], JWTError?, [UInt8]) in
                let before = Array(verified.claimsJSON)
                var innerToken = inner.token + ""
                let result = innerToken.withUTF8 { innerVerifier.check(UnsafeRawBufferPointer($0)) }
                return (before, result, Array(verified.claimsJSON))
            }
        }
        XCTAssertNil(innerResult)
        XCTAssertEqual(before, after)
        XCTAssertNotNil(try? JSONValue.parse(after)["iss"])
    }
}
