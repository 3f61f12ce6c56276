import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

/// Tokens made outside the project: jwcrypto 1.6.1 and joserfc 1.8.0 (PyPI), and RSA-OAEP-384/512 assembled over
/// pyca/cryptography, which neither library implements (Fixtures/jwe, made by
/// IntegrationTests/differential/jwe/generate_fixtures.py). Every key-management algorithm with every content
/// encryption, encrypted-only and nested, through `JWTVerifier.verifyEncrypted` and `verifyNested`; the cases
/// refused by design; every part of a token tampered with.
final class JWEInteropTests: XCTestCase {
    static let now: Int64 = 1_800_000_000

    struct Fixture {
        let name: String
        let decryptor: JWEDecryptor
        let verifier: JWTVerifier
        let encrypted: [[String: Any]]
        let nested: [[String: Any]]
        let refused: [[String: Any]]
    }

    static func fixture(_ name: String) throws -> Fixture {
        let doc = try XCTUnwrap(Fixtures.json("jwe/\(name).json") as? [String: Any])
        let keys = try DecryptionKeySet(document: Wycheproof.jsonBytes(doc["decryption_keys"]!))
        XCTAssertEqual(keys.rejected, [], "\(name): every decryption key loads")
        let signing = try JWKSet(json: Wycheproof.jsonBytes(doc["verification_keys"]!))
        let policy = ClaimsPolicy(issuers: ["https://issuer.example"], audiences: ["jwe-tests"])
        return Fixture(
            name: name, decryptor: JWEDecryptor(keys: keys), verifier: JWTVerifier(keys: signing, policy: policy),
            encrypted: doc["encrypted"] as! [[String: Any]], nested: doc["nested"] as! [[String: Any]],
            refused: doc["refused"] as! [[String: Any]])
    }

    private func runAll(_ name: String, count: Int) throws -> Set<String> {
        let f = try Self.fixture(name)
        XCTAssertEqual(f.encrypted.count, count, name)
        XCTAssertEqual(f.nested.count, count, name)
        var covered: Set<String> = []
        for c in f.encrypted {
            let token = c["token"] as! String, label = "\(name) encrypted \(c["alg"]!) \(c["enc"]!) \(c["kid"]!)"
            do {
                let jwt = try f.verifier.verifyEncrypted(token, decryptor: f.decryptor, at: Self.now)
                XCTAssertEqual(jwt.subject, "user-1", label)
                XCTAssertEqual(jwt.keyManagement.rawValue, c["alg"] as? String, label)
                XCTAssertEqual(jwt.contentEncryption.rawValue, c["enc"] as? String, label)
                XCTAssertEqual(jwt.key.kid, c["kid"] as? String, label)
                covered.insert("\(c["alg"]!) \(c["enc"]!) \(c["kid"]!)")
            } catch { XCTFail("\(label): \(error)") }
            // An encrypted-only token is not a nested one: no cty, and its plaintext is not a JWS.
            XCTAssertEqual(
                f.verifier.checkNested(
                    Array(token.utf8).withUnsafeBytes { UnsafeRawBufferPointer($0) }, decryptor: f.decryptor,
                    at: Self.now)?.code,
                .malformed, label)
        }
        for c in f.nested {
            let token = c["token"] as! String, label = "\(name) nested \(c["alg"]!) \(c["enc"]!) \(c["kid"]!)"
            do {
                let jwt = try f.verifier.verifyNested(token, decryptor: f.decryptor, at: Self.now)
                XCTAssertEqual(jwt.subject, "user-1", label)
                XCTAssertEqual(jwt.algorithm, .es256, label)
                XCTAssertEqual(jwt.kid, "sig-1", label)
            } catch { XCTFail("\(label): \(error)") }
            // Its claims are signed: the encrypted-only mode does not take them unverified.
            XCTAssertThrowsError(try f.verifier.verifyEncrypted(token, decryptor: f.decryptor, at: Self.now), label)
            // The inner JWS goes through the whole policy: a verifier for another audience refuses it.
            let other = JWTVerifier(keys: f.verifier.keys, policy: ClaimsPolicy(audiences: ["someone-else"]))
            XCTAssertThrowsError(try other.verifyNested(token, decryptor: f.decryptor, at: Self.now)) {
                XCTAssertEqual(($0 as? JWTError)?.code, .badAudience, label)
            }
        }
        for c in f.refused {
            let token = c["token"] as! String, label = "\(name) refused \(c["case"]!)"
            let expected = JWTErrorCode(name: c["code"] as! String)!
            XCTAssertThrowsError(try f.verifier.verifyNested(token, decryptor: f.decryptor, at: Self.now), label) {
                XCTAssertEqual(($0 as? JWTError)?.code, expected, label)
            }
            if c["case"] as? String != "nested without cty" {
                XCTAssertThrowsError(try f.verifier.verifyEncrypted(token, decryptor: f.decryptor, at: Self.now), label)
            }
        }
        return covered
    }

    func testEveryAlgorithmFromTwoLibrariesAndPyca() throws {
        let jwcrypto = try runAll("jwcrypto", count: 150)
        let joserfc = try runAll("joserfc", count: 150)
        let pyca = try runAll("pyca", count: 12)
        let algs = Set((jwcrypto.union(joserfc).union(pyca)).map { String($0.split(separator: " ")[0]) })
        XCTAssertEqual(algs, Set(KeyManagementAlgorithm.allCases.map(\.rawValue)), "every key management algorithm")
        let encs = Set(jwcrypto.union(joserfc).union(pyca).map { String($0.split(separator: " ")[1]) })
        XCTAssertEqual(encs, Set(ContentEncryption.allCases.map(\.rawValue)), "every content encryption")
        let curves = Set(
            jwcrypto.union(joserfc).filter { $0.hasPrefix("ECDH-ES") }.map { String($0.split(separator: " ")[2]) })
        XCTAssertEqual(curves, ["ec-P-256", "ec-P-384", "ec-P-521", "x25519"])
    }

    func testTheRefusalsByDesignAreAllThere() throws {
        let cases = Set(try Self.fixture("jwcrypto").refused.map { $0["case"] as! String })
        XCTAssertEqual(cases, ["zip", "crit", "RSA1_5", "nested without cty", "JWE inside a JWE", "PBES2"])
    }

    /// Each of the five parts changed by one character (the segment stays canonical base64url): never accepted,
    /// and every change of the key, IV, ciphertext or tag is the one decryption error.
    func testTamperingWithEachPart() throws {
        let f = try Self.fixture("jwcrypto")
        var tried = 0
        for c in f.nested where (c["enc"] as! String) == "A256GCM" || (c["enc"] as! String) == "A128CBC-HS256" {
            let token = c["token"] as! String
            let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            for i in 0..<5 where parts[i].count >= 3 {
                var chars = Array(parts[i])
                let at = chars.count / 2
                chars[at] = chars[at] == "A" ? "B" : "A"
                var edited = parts
                edited[i] = String(chars)
                let bad = edited.joined(separator: ".")
                let label = "\(c["alg"]!) \(c["enc"]!) \(c["kid"]!) part \(i)"
                do {
                    _ = try f.verifier.verifyNested(bad, decryptor: f.decryptor, at: Self.now)
                    XCTFail("\(label): a tampered token was accepted")
                } catch {
                    if i > 0 { XCTAssertEqual(error.code, .decryptionFailed, "\(label): \(error)") }
                    XCTAssertEqual(
                        error.detail.description == JWEDecryptor.failed.detail.description,
                        error.code == .decryptionFailed)
                }
                tried += 1
            }
        }
        XCTAssertGreaterThan(tried, 100)
    }

    /// The keys of one side never serve the other: the decryption keys do not load as verification keys, the
    /// signing key does not load as a decryption key, and a private signing JWK is not a verification key.
    func testDecryptionAndVerificationKeysStayApart() throws {
        let doc = try XCTUnwrap(Fixtures.json("jwe/jwcrypto.json") as? [String: Any])
        let asVerification = try? JWKSet(json: Wycheproof.jsonBytes(doc["decryption_keys"]!), allowMixedKeyTypes: true)
        XCTAssertEqual(asVerification?.keys.count ?? 0, 0, "no decryption key verifies")
        XCTAssertThrowsError(try DecryptionKeySet(document: Wycheproof.jsonBytes(doc["verification_keys"]!))) {
            XCTAssertEqual(($0 as? KeyError)?.code, .notAKeySet)
        }
        XCTAssertThrowsError(
            try DecryptionKey(jwkJSON: Array(#"{"kty":"oct","k":"AAAAAAAAAAAAAAAAAAAAAA","use":"sig"}"#.utf8))
        ) { XCTAssertEqual(($0 as? KeyError)?.code, .wrongUse) }
        XCTAssertThrowsError(
            try DecryptionKey(
                jwkJSON: Array(#"{"kty":"oct","k":"AAAAAAAAAAAAAAAAAAAAAA","key_ops":["sign","verify"]}"#.utf8))
        ) { XCTAssertEqual(($0 as? KeyError)?.code, .wrongUse) }
        XCTAssertThrowsError(
            try DecryptionKey(jwkJSON: Array(#"{"kty":"oct","k":"AAAAAAAAAAAAAAAAAAAAAA","alg":"HS256"}"#.utf8))
        ) { XCTAssertEqual(($0 as? KeyError)?.code, .wrongUse) }
        XCTAssertThrowsError(
            try DecryptionKey(
                jwkJSON: Array(#"{"kty":"oct","k":"AAAAAAAAAAAAAAAAAAAAAA","alg":"PBES2-HS256+A128KW"}"#.utf8))
        ) { XCTAssertEqual(($0 as? KeyError)?.code, .unsupportedType) }
        XCTAssertNoThrow(
            try DecryptionKey(
                jwkJSON: Array(#"{"kty":"oct","k":"AAAAAAAAAAAAAAAAAAAAAA","key_ops":["unwrapKey"]}"#.utf8)))
        // A private key (the EC decryption key, `use` removed) is never a verification key.
        var ec = (doc["decryption_keys"] as! [String: Any])["keys"] as! [[String: Any]]
        ec = ec.filter { $0["kid"] as? String == "ec-P-256" }
        ec[0].removeValue(forKey: "use")
        XCTAssertThrowsError(try VerificationKey(jwkJSON: Wycheproof.jsonBytes(ec[0]))) {
            XCTAssertEqual(($0 as? KeyError)?.code, .wrongUse)
        }
    }

    /// A wrong key and a tampered token get the same code and the same detail.
    func testWrongKeyIsTheSameErrorAsTampering() throws {
        let f = try Self.fixture("jwcrypto")
        let other = try DecryptionKeySet(
            document: Array(#"{"keys":[{"kty":"oct","kid":"kw-128","k":"AAAAAAAAAAAAAAAAAAAAAA"}]}"#.utf8))
        let token = f.encrypted.first { $0["kid"] as? String == "kw-128" }!["token"] as! String
        XCTAssertThrowsError(try JWEDecryptor(keys: other).decrypt(token)) {
            XCTAssertEqual($0 as? JWTError, JWEDecryptor.failed)
        }
    }

    func testSizeLimitComesFirst() throws {
        let f = try Self.fixture("jwcrypto")
        let token = f.encrypted[0]["token"] as! String
        XCTAssertThrowsError(
            try JWEDecryptor(keys: f.decryptor.keys, maxTokenSize: token.utf8.count - 1).decrypt(token)
        ) {
            XCTAssertEqual(($0 as? JWTError)?.code, .tooLarge)
        }
    }

    func testMultiIssuerVerifierRoutesTheInnerToken() throws {
        let f = try Self.fixture("joserfc")
        let store = KeyStore()
        store.publish(f.verifier.keys, forIssuer: "https://issuer.example")
        let multi = MultiIssuerVerifier(
            store: store,
            issuers: [
                IssuerConfiguration(issuer: "https://issuer.example", policy: ClaimsPolicy(audiences: ["jwe-tests"]))
            ])
        let token = f.nested.first { $0["alg"] as? String == "ECDH-ES+A256KW" }!["token"] as! String
        XCTAssertEqual(
            try multi.verifyNested(token, decryptor: f.decryptor, at: Self.now).issuer, "https://issuer.example")
    }
}
