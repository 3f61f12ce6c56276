import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

/// The compact-serialization signature examples of RFC 7515 Appendix A,
/// RFC 8037 Appendix A and RFC 7520 Section 4, verified with the RFCs'
/// example keys (Fixtures/rfc, each file names its source section; every
/// vector was checked with pyca/cryptography, jwcrypto and joserfc before it
/// was committed).
///
/// Not covered, because they have no compact serialization:
/// - RFC 7515 A.5 (unsecured JWS, alg "none": never accepted; see the attack tests),
///   A.6 and A.7 (JWS JSON serialization, general and flattened).
/// - RFC 7520 4.6 (protected + unprotected header), 4.7 (unprotected header only)
///   and 4.8 (multiple signatures): JSON serialization only.
/// - RFC 7520 4.5 (detached content) is compact, but the payload is not in the
///   token; it is asserted below as a token that must NOT verify with an empty payload.
final class RFCVectorTests: XCTestCase {
    struct Vector {
        let name: String
        let source: String
        let alg: JWTAlgorithm
        let jwk: [String: Any]
        let jwkWithPrivate: [String: Any]?
        let token: String
        let payloadIsJWT: Bool
        let exp: Int64?
    }

    static let vectorNames = [
        "rfc7515-a1-hs256", "rfc7515-a2-rs256", "rfc7515-a3-es256", "rfc7515-a4-es512",
        "rfc8037-a4-ed25519",
        "rfc7520-4.1-rs256", "rfc7520-4.2-ps384", "rfc7520-4.3-es512", "rfc7520-4.4-hs256",
    ]

    static func vector(_ name: String) throws -> Vector {
        let o = try KeyKit.object("rfc/\(name).json")
        let alg = try XCTUnwrap(JWTAlgorithm(rawValue: try XCTUnwrap(o["alg"] as? String)))
        return Vector(
            name: name,
            source: try XCTUnwrap(o["source"] as? String),
            alg: alg,
            jwk: try XCTUnwrap(o["jwk"] as? [String: Any]),
            jwkWithPrivate: o["jwkWithPrivate"] as? [String: Any],
            token: try XCTUnwrap(o["token"] as? String),
            payloadIsJWT: try XCTUnwrap(o["payloadIsJWT"] as? Bool),
            exp: (o["exp"] as? NSNumber)?.int64Value)
    }

    static func vectors() throws -> [Vector] { try vectorNames.map(vector) }

    func testEveryVectorFileIsCoveredAndCited() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Fixtures.url("rfc").path)
            .filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertEqual(files, (Self.vectorNames + ["rfc7520-4.5-detached-hs256"]).map { $0 + ".json" }.sorted())
        let vectors = try Self.vectors()
        XCTAssertEqual(vectors.count, 9)
        for v in vectors {
            XCTAssertTrue(v.source.hasPrefix("RFC "), "\(v.name): source must cite the RFC section")
            XCTAssertEqual(v.token.split(separator: ".", omittingEmptySubsequences: false).count, 3, v.name)
        }
    }

    // MARK: Signature only (every vector)

    func testEveryVectorVerifiesAsJWS() throws {
        for v in try Self.vectors() {
            let verifier = JWTVerifier(keys: JWKSet(keys: [try KeyKit.key(v.jwk)]), clock: FixedClock(0))
            do {
                let jws = try verifier.verifyJWS(v.token)
                XCTAssertEqual(jws.algorithm, v.alg, v.name)
                let payload = try XCTUnwrap(KeyKit.base64URLDecode(v.token.split(separator: ".")[1]))
                XCTAssertEqual(jws.payload, payload, v.name)
                XCTAssertEqual(jws.kid, v.jwk["kid"] as? String, v.name)
            } catch {
                XCTFail("\(v.name) (\(v.source)): \(error)")
            }
        }
    }

    func testEveryVectorWithAFlippedSignatureBitIsBadSignature() throws {
        for v in try Self.vectors() {
            let verifier = JWTVerifier(
                keys: JWKSet(keys: [try KeyKit.key(v.jwk)]),
                clock: FixedClock(v.exp.map { $0 - 3600 } ?? 0))
            let signatureLength = KeyKit.base64URLDecode(v.token.split(separator: ".")[2])!.count
            // A bit in the middle, the first and the last byte of the signature.
            for byte in [signatureLength / 2, 0, signatureLength - 1] {
                let forged = KeyKit.flippingSignatureBit(v.token, byte: byte, bit: byte == 0 ? 0x80 : 0x01)
                XCTAssertNotEqual(forged, v.token)
                KeyKit.expect(.badSignature, "\(v.name) byte \(byte)") { _ = try verifier.verifyJWS(forged) }
                if v.payloadIsJWT {
                    KeyKit.expect(.badSignature, "\(v.name) byte \(byte)") { _ = try verifier.verify(forged) }
                }
            }
        }
    }

    /// The RFCs print the example keys with their private members; they are ignored.
    /// The examples' private keys are not verification keys: a JWK with `d` is refused as `wrong_key_use`
    /// (it is a decryption or signing key; its public part verifies, as the test above shows).
    func testPrivateExampleKeysAreNotVerificationKeys() throws {
        var checked = 0
        for v in try Self.vectors() {
            guard let full = v.jwkWithPrivate else { continue }
            XCTAssertNotNil(full["d"])
            XCTAssertThrowsError(try KeyKit.key(full), v.name) {
                XCTAssertEqual(($0 as? KeyError)?.code, .wrongUse, v.name)
            }
            checked += 1
        }
        XCTAssertEqual(checked, 4)
    }

    // MARK: RFC 7515 Appendix A.1-A.3: JWTs (exp 1300819380, March 2011)

    func testRFC7515ClaimsVerifyBeforeExpAndExpireAfter() throws {
        let jwtVectors = try Self.vectors().filter(\.payloadIsJWT)
        XCTAssertEqual(jwtVectors.map(\.name), ["rfc7515-a1-hs256", "rfc7515-a2-rs256", "rfc7515-a3-es256"])
        for v in jwtVectors {
            let exp = try XCTUnwrap(v.exp)
            XCTAssertEqual(exp, 1_300_819_380)
            let keys = JWKSet(keys: [try KeyKit.key(v.jwk)])
            let policy = ClaimsPolicy(issuers: ["joe"])
            let before = JWTVerifier(keys: keys, policy: policy, clock: FixedClock(exp - 3600))
            do {
                let jwt = try before.verify(v.token)
                XCTAssertEqual(jwt.algorithm, v.alg, v.name)
                XCTAssertEqual(jwt.issuer, "joe", v.name)
                XCTAssertEqual(jwt.expiresAt, 1_300_819_380, v.name)
                XCTAssertNil(jwt.kid, v.name)
                XCTAssertEqual(jwt[claim: "http://example.com/is_root"], .bool(true), v.name)
                // The header and claims are kept exactly as signed, CR LF included.
                XCTAssertEqual(
                    String(decoding: jwt.claimsJSON, as: UTF8.self),
                    "{\"iss\":\"joe\",\r\n \"exp\":1300819380,\r\n \"http://example.com/is_root\":true}", v.name)
            } catch {
                XCTFail("\(v.name) (\(v.source)): \(error)")
            }
            // One second before exp + leeway still verifies; at exp + leeway it has expired.
            let leeway = policy.leeway
            XCTAssertNoThrow(
                try JWTVerifier(keys: keys, policy: policy, clock: FixedClock(exp + leeway - 1)).verify(v.token), v.name
            )
            let after = JWTVerifier(keys: keys, policy: policy, clock: FixedClock(exp + leeway))
            KeyKit.expect(.expired, v.name) { _ = try after.verify(v.token) }
            // verifyJWS reads no claims, so the 2011 token still has a valid signature today.
            XCTAssertNoThrow(try JWTVerifier(keys: keys, policy: policy).verifyJWS(v.token), v.name)
            KeyKit.expect(.badIssuer, v.name) {
                _ = try JWTVerifier(
                    keys: keys, policy: ClaimsPolicy(issuers: ["not-joe"]), clock: FixedClock(exp - 3600)
                ).verify(v.token)
            }
        }
    }

    func testRFC7515A1HeaderIsKeptAsSigned() throws {
        let v = try Self.vector("rfc7515-a1-hs256")
        let jwt = try JWTVerifier(keys: JWKSet(keys: [try KeyKit.key(v.jwk)]), clock: FixedClock(1_300_819_380 - 1))
            .verify(v.token)
        XCTAssertEqual(String(decoding: jwt.header, as: UTF8.self), "{\"typ\":\"JWT\",\r\n \"alg\":\"HS256\"}")
    }

    /// The payloads of A.4, RFC 8037 and RFC 7520 are not JSON: a JWS, not a JWT.
    func testNonJSONPayloadsAreNotJWTs() throws {
        let vectors = try Self.vectors().filter { !$0.payloadIsJWT }
        XCTAssertEqual(vectors.count, 6)
        for v in vectors {
            let verifier = JWTVerifier(keys: JWKSet(keys: [try KeyKit.key(v.jwk)]), clock: FixedClock(0))
            KeyKit.expect(.malformed, v.name) { _ = try verifier.verify(v.token) }
        }
    }

    // MARK: Payload texts

    func testPayloadTexts() throws {
        func payload(_ name: String) throws -> String {
            let jws = try JWTVerifier(keys: JWKSet(keys: [try KeyKit.key(try Self.vector(name).jwk)]))
                .verifyJWS(try Self.vector(name).token)
            return String(decoding: jws.payload, as: UTF8.self)
        }
        XCTAssertEqual(try payload("rfc7515-a4-es512"), "Payload")
        XCTAssertEqual(try payload("rfc8037-a4-ed25519"), "Example of Ed25519 signing")
        let frodo =
            "It\u{2019}s a dangerous business, Frodo, going out your door. You step onto the road, and if you don't keep your feet, there\u{2019}s no knowing where you might be swept off to."
        for name in ["rfc7520-4.1-rs256", "rfc7520-4.2-ps384", "rfc7520-4.3-es512", "rfc7520-4.4-hs256"] {
            XCTAssertEqual(try payload(name), frodo, name)
        }
    }

    // MARK: RFC 8037 (EdDSA)

    func testRFC8037Ed25519KeyAllowsEdDSAAndEd25519Names() throws {
        let v = try Self.vector("rfc8037-a4-ed25519")
        let key = try KeyKit.key(v.jwk)
        XCTAssertEqual(key.type, .okp(.ed25519))
        XCTAssertTrue(key.algorithms.contains(.edDSA))
        XCTAssertTrue(key.algorithms.contains(.ed25519))
        XCTAssertFalse(key.algorithms.contains(.ed448))
        // A policy that allows only the fully-specified name refuses the polymorphic "EdDSA" header.
        let strict = JWTVerifier(keys: JWKSet(keys: [key]), policy: ClaimsPolicy(algorithms: AlgorithmSet([.ed25519])))
        KeyKit.expect(.algNotAllowed) { _ = try strict.verifyJWS(v.token) }
    }

    // MARK: RFC 7520 (one kid, several key types)

    /// RFC 7520 gives its RSA and EC keys the same kid; one set holding both
    /// must pick the key that fits each token's alg.
    func testRFC7520KeysShareAKidInOneSet() throws {
        let rsa = try Self.vector("rfc7520-4.1-rs256").jwk
        let ec = try Self.vector("rfc7520-4.3-es512").jwk
        XCTAssertEqual(rsa["kid"] as? String, "bilbo.baggins@hobbiton.example")
        XCTAssertEqual(ec["kid"] as? String, "bilbo.baggins@hobbiton.example")
        let set = try KeyKit.set([rsa, ec])
        XCTAssertEqual(set.keys.count, 2)
        XCTAssertEqual(set.rejected, [])
        let verifier = JWTVerifier(keys: set)
        for name in ["rfc7520-4.1-rs256", "rfc7520-4.2-ps384", "rfc7520-4.3-es512"] {
            let v = try Self.vector(name)
            do {
                let jws = try verifier.verifyJWS(v.token)
                XCTAssertEqual(jws.algorithm, v.alg, name)
                XCTAssertEqual(jws.kid, "bilbo.baggins@hobbiton.example", name)
            } catch {
                XCTFail("\(name): \(error)")
            }
        }
        // The HMAC example (kid 018c0ae5-...) is not in this set.
        let hmacToken = try Self.vector("rfc7520-4.4-hs256").token
        KeyKit.expect(.unknownKid) { _ = try verifier.verifyJWS(hmacToken) }
    }

    func testRFC7520SymmetricKeyIsPinnedToHS256() throws {
        let v = try Self.vector("rfc7520-4.4-hs256")
        let key = try KeyKit.key(v.jwk)
        XCTAssertEqual(key.type, .oct(bytes: 32))
        XCTAssertEqual(key.algorithms, AlgorithmSet([.hs256]))
        XCTAssertEqual(key.kid, "018c0ae5-4d9b-471b-bfd6-eef314bc7037")
    }

    func testRFC7520DetachedContentDoesNotVerifyWithAnEmptyPayload() throws {
        let o = try KeyKit.object("rfc/rfc7520-4.5-detached-hs256.json")
        XCTAssertTrue((o["source"] as? String)?.hasPrefix("RFC 7520 Section 4.5") == true)
        let token = try XCTUnwrap(o["token"] as? String)
        let detached = try XCTUnwrap(o["detachedPayload"] as? String)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        XCTAssertEqual(parts.count, 3)
        XCTAssertEqual(parts[1], "", "the compact detached form has an empty payload segment")
        let verifier = JWTVerifier(keys: JWKSet(keys: [try KeyKit.key(try XCTUnwrap(o["jwk"]))]))
        KeyKit.expect(.badSignature) { _ = try verifier.verifyJWS(token) }
        // Re-attached, it is the Section 4.4 token, which verifies.
        let reattached = "\(parts[0]).\(detached).\(parts[2])"
        XCTAssertEqual(reattached, try Self.vector("rfc7520-4.4-hs256").token)
        XCTAssertNoThrow(try verifier.verifyJWS(reattached))
    }

    // MARK: Keys pin the algorithm

    func testVectorsRefuseAnotherAlgorithmFamilyForTheSameKey() throws {
        // RS256 header re-signed nowhere: same signature bytes, PS256 header, same key.
        // The key may verify PS256 (an RSA key without "alg"), so this is a signature failure.
        let v = try Self.vector("rfc7515-a2-rs256")
        let parts = v.token.split(separator: ".")
        let ps256 = "\(KeyKit.base64URLEncode(Array("{\"alg\":\"PS256\"}".utf8))).\(parts[1]).\(parts[2])"
        let verifier = JWTVerifier(keys: JWKSet(keys: [try KeyKit.key(v.jwk)]))
        KeyKit.expect(.badSignature) { _ = try verifier.verifyJWS(ps256) }
        // The HS256 header on the RSA key: no key fits HS256.
        let hs256 = "\(KeyKit.base64URLEncode(Array("{\"alg\":\"HS256\"}".utf8))).\(parts[1]).\(parts[2])"
        KeyKit.expect(.unknownKid) { _ = try verifier.verifyJWS(hs256) }
    }
}
