import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

/// The checks before any key is touched, each on a real token (jwcrypto's, Fixtures/jwe) with one thing
/// changed: the five segments, strict base64url, the strict header and its refusals, the shapes the
/// algorithms fix, and hostile ECDH-ES ephemeral keys.
final class JWEStructureTests: XCTestCase {
    private var fixture: JWEInteropTests.Fixture!

    override func setUpWithError() throws { fixture = try JWEInteropTests.fixture("jwcrypto") }

    private func token(alg: String, enc: String, kid: String? = nil) -> [String] {
        let c = fixture.encrypted.first {
            $0["alg"] as? String == alg && $0["enc"] as? String == enc && (kid == nil || $0["kid"] as? String == kid)
        }!
        return (c["token"] as! String).split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    private func header(_ parts: [String]) -> [String: Any] {
        try! JSONSerialization.jsonObject(with: Data(Base64URL.decode(parts[0])!)) as! [String: Any]
    }

    private func withHeader(_ parts: [String], _ edit: (inout [String: Any]) -> Void) -> String {
        var h = header(parts)
        edit(&h)
        var p = parts
        p[0] = Base64URL.encode(try! JSONSerialization.data(withJSONObject: h, options: [.sortedKeys]))
        return p.joined(separator: ".")
    }

    private func code(_ token: String) -> JWTErrorCode? {
        do {
            _ = try fixture.decryptor.decrypt(token)
            return nil
        } catch { return error.code }
    }

    func testSegments() {
        let p = token(alg: "A128KW", enc: "A128GCM")
        XCTAssertNil(code(p.joined(separator: ".")), "the unmodified token decrypts")
        XCTAssertEqual(code(p.dropLast().joined(separator: ".")), .malformed, "four segments")
        XCTAssertEqual(code((p + ["AAAA"]).joined(separator: ".")), .malformed, "six segments")
        XCTAssertEqual(code(([""] + p.dropFirst()).joined(separator: ".")), .malformed, "empty header")
        var q = p
        q[2] = ""
        XCTAssertEqual(code(q.joined(separator: ".")), .malformed, "empty IV")
        q = p
        q[3] += "="
        XCTAssertEqual(code(q.joined(separator: ".")), .malformed, "padding is not base64url")
        q = p
        q[4] = String(q[4].dropLast()) + (q[4].last == "B" ? "C" : "B")  // non-zero trailing bits: not canonical
        XCTAssertEqual(code(q.joined(separator: ".")), .malformed, "non-canonical base64url")
        XCTAssertEqual(code(""), .malformed)
    }

    func testHeaderRefusals() {
        let p = token(alg: "A128KW", enc: "A128GCM")
        XCTAssertEqual(code(withHeader(p) { $0["zip"] = "DEF" }), .unsupportedAlg, "zip")
        XCTAssertEqual(code(withHeader(p) { $0["crit"] = ["b64"] }), .critUnsupported, "crit")
        XCTAssertEqual(code(withHeader(p) { $0["alg"] = "RSA1_5" }), .unsupportedAlg, "RSA1_5")
        XCTAssertEqual(
            code(
                withHeader(p) {
                    $0["alg"] = "PBES2-HS512+A256KW"; $0["p2c"] = 100_000_000
                }), .unsupportedAlg)
        XCTAssertEqual(code(withHeader(p) { $0["alg"] = "none" }), .unsupportedAlg)
        XCTAssertEqual(code(withHeader(p) { $0["enc"] = "A128CTR" }), .unsupportedAlg)
        XCTAssertEqual(code(withHeader(p) { $0.removeValue(forKey: "enc") }), .malformed)
        XCTAssertEqual(code(withHeader(p) { $0["alg"] = 1 }), .malformed)
        XCTAssertEqual(code(withHeader(p) { $0["kid"] = 7 }), .malformed)
        XCTAssertEqual(code(withHeader(p) { $0["kid"] = "no-such-key" }), .unknownKid)
        // Strict JSON: a duplicate member, and a header that is not an object.
        var q = p
        q[0] = Base64URL.encode(Array(#"{"alg":"A128KW","alg":"dir","enc":"A128GCM"}"#.utf8))
        XCTAssertEqual(code(q.joined(separator: ".")), .malformed, "duplicate alg")
        q[0] = Base64URL.encode(Array(#"["A128KW"]"#.utf8))
        XCTAssertEqual(code(q.joined(separator: ".")), .malformed)
        // A header member changed but still well formed: the AAD no longer matches, the one decryption error.
        XCTAssertEqual(code(withHeader(p) { $0["x"] = "y" }), .decryptionFailed)
    }

    func testShapesTheAlgorithmsFix() {
        var p = token(alg: "dir", enc: "A128GCM")
        p[1] = "AAAAAAAAAAAAAAAAAAAAAA"
        XCTAssertEqual(code(p.joined(separator: ".")), .malformed, "dir with an encrypted key")
        p = token(alg: "A128KW", enc: "A128GCM")
        p[1] = ""
        XCTAssertEqual(code(p.joined(separator: ".")), .malformed, "A128KW without one")
        p = token(alg: "A128KW", enc: "A128GCM")
        p[2] = "AAAAAAAAAAAAAAAA"  // 12 bytes: fine for GCM
        XCTAssertEqual(code(p.joined(separator: ".")), .decryptionFailed)
        p[2] = "AAAAAAAAAAAAAAAAAAAAAA"  // 16 bytes: not a GCM IV
        XCTAssertEqual(code(p.joined(separator: ".")), .malformed)
        let g = token(alg: "A128GCMKW", enc: "A128GCM")
        XCTAssertEqual(code(withHeader(g) { $0.removeValue(forKey: "tag") }), .malformed, "GCMKW without tag")
        XCTAssertEqual(code(withHeader(g) { $0["iv"] = "AAAA" }), .malformed, "GCMKW with a short iv")
    }

    func testHostileEphemeralKeys() throws {
        let e = token(alg: "ECDH-ES", enc: "A128GCM", kid: "ec-P-256")
        XCTAssertEqual(code(withHeader(e) { $0.removeValue(forKey: "epk") }), .malformed)
        // A point off the curve (y + 1): the invalid-curve attack's first step.
        let offCurve = withHeader(e) { h in
            var epk = h["epk"] as! [String: Any]
            var y = Base64URL.decode(epk["y"] as! String)!
            y[y.count - 1] ^= 1
            epk["y"] = Base64URL.encode(y)
            h["epk"] = epk
        }
        XCTAssertEqual(code(offCurve), .decryptionFailed)
        // A P-384 point given to the P-256 key.
        let p384 = token(alg: "ECDH-ES", enc: "A128GCM", kid: "ec-P-384")
        let wrongCurve = withHeader(e) { $0["epk"] = header(p384)["epk"] }
        XCTAssertEqual(code(wrongCurve), .decryptionFailed)
        // X25519 ephemeral keys of small order, every one of the blocklist: never a key agreement.
        let x = token(alg: "ECDH-ES", enc: "A128GCM", kid: "x25519")
        for u in [
            "0000000000000000000000000000000000000000000000000000000000000000",
            "0100000000000000000000000000000000000000000000000000000000000000",
            "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
            "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        ] {
            let small = withHeader(x) { h in
                h["epk"] = ["kty": "OKP", "crv": "X25519", "x": Base64URL.encode(Wycheproof.hex(u))]
            }
            XCTAssertEqual(code(small), .decryptionFailed, u)
        }
        XCTAssertNil(code(x.joined(separator: ".")))
    }

    func testKidLessKeysAreCandidates() throws {
        // The A128KW key without its kid: a token naming "kw-128" still finds it, and so does one naming nothing.
        let doc = try XCTUnwrap(Fixtures.json("jwe/jwcrypto.json") as? [String: Any])
        var jwk = ((doc["decryption_keys"] as! [String: Any])["keys"] as! [[String: Any]]).first {
            $0["kid"] as? String == "kw-128"
        }!
        jwk.removeValue(forKey: "kid")
        let keys = try DecryptionKeySet(document: Wycheproof.jsonBytes(["keys": [jwk]]))
        let p = token(alg: "A128KW", enc: "A128GCM")
        XCTAssertNoThrow(try JWEDecryptor(keys: keys).decrypt(p.joined(separator: ".")))
        // A key pinned to another algorithm is no candidate.
        jwk["alg"] = "A128GCMKW"
        let pinned = try DecryptionKeySet(document: Wycheproof.jsonBytes(["keys": [jwk]]))
        XCTAssertThrowsError(try JWEDecryptor(keys: pinned).decrypt(p.joined(separator: "."))) {
            XCTAssertEqual(($0 as? JWTError)?.code, .unknownKid)
        }
    }
}
