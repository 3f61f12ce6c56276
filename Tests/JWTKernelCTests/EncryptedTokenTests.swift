import CJWTK
import Foundation
import JWTKernel
import XCTest

@testable import JWTKernelC

/// jwtk.h's JWE surface as a C host calls it: jwtk_keystore_load_decryption_keys and a verifier's
/// "token_type", over tokens jwcrypto made (Tests/JWTKernelTests/Fixtures/jwe/jwcrypto.json, read by path).
final class EncryptedTokenTests: XCTestCase {
    static let now: Int64 = 1_800_000_000

    var fixture: [String: Any] = [:]

    override func setUpWithError() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../JWTKernelTests/Fixtures/jwe/jwcrypto.json")
        fixture = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    private func json(_ name: String) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: fixture[name]!), as: UTF8.self)
    }

    private func tokens(_ kind: String) -> [String] {
        (fixture[kind] as! [[String: Any]]).map { $0["token"] as! String }
    }

    private func verifier(_ type: String, keystore ks: OpaquePointer) throws -> OpaquePointer {
        let config = #"{"token_type":"\#(type)","issuers":["https://issuer.example"],"audiences":["jwe-tests"]}"#
        var v: OpaquePointer?
        XCTAssertEqual(jwtk_verifier_new(config, config.utf8.count, ks, &v), JWTK_OK)
        return try XCTUnwrap(v)
    }

    private func verify(_ v: OpaquePointer, _ ctx: OpaquePointer, _ token: String, _ out: inout jwtk_claims) -> Int32 {
        out.struct_size = UInt32(MemoryLayout<jwtk_claims>.size)
        return token.withCString { jwtk_verify(v, ctx, $0, token.utf8.count, Self.now, &out) }
    }

    private func text(_ s: jwtk_str) -> String? {
        guard let p = s.ptr else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: p, count: s.len), as: UTF8.self)
    }

    func testNestedAndEncryptedThroughTheCLibrary() throws {
        var ks: OpaquePointer?, ctx: OpaquePointer?
        XCTAssertEqual(jwtk_keystore_new(&ks), JWTK_OK)
        XCTAssertEqual(jwtk_ctx_new(&ctx), JWTK_OK)
        defer { jwtk_keystore_free(ks); jwtk_ctx_free(ctx) }
        let sig = try json("verification_keys"), enc = try json("decryption_keys")
        XCTAssertEqual(jwtk_keystore_load_jwks(ks, nil, 0, sig, sig.utf8.count), JWTK_OK)
        let nested = try verifier("nested", keystore: ks!), encrypted = try verifier("encrypted", keystore: ks!)
        defer { jwtk_verifier_free(nested); jwtk_verifier_free(encrypted) }
        var out = jwtk_claims()

        // Before decryption keys are loaded: keys_unavailable, as for an issuer without keys.
        XCTAssertEqual(verify(nested, ctx!, tokens("nested")[0], &out), JWTK_KEYS_UNAVAILABLE)
        // The verification keys are not decryption keys, and the signing JWKS loads none.
        XCTAssertEqual(jwtk_keystore_load_decryption_keys(ks, sig, sig.utf8.count, ctx), JWTK_NOT_A_KEY_SET)
        XCTAssertEqual(jwtk_keystore_load_decryption_keys(ks, enc, enc.utf8.count, ctx), JWTK_OK)

        for token in tokens("nested") {
            XCTAssertEqual(verify(nested, ctx!, token, &out), JWTK_OK)
            XCTAssertEqual(text(out.alg), "ES256")
            XCTAssertEqual(text(out.kid), "sig-1")
            XCTAssertEqual(text(out.sub), "user-1")
            XCTAssertNil(out.payload.ptr)
            var value = jwtk_str(), type: Int32 = 0
            XCTAssertEqual(jwtk_claim(ctx, "aud", 3, &value, &type), JWTK_OK)
            XCTAssertEqual(text(value), "jwe-tests")
            // A nested token is not an encrypted-only one.
            XCTAssertEqual(verify(encrypted, ctx!, token, &out), JWTK_MALFORMED)
        }
        for token in tokens("encrypted") {
            XCTAssertEqual(verify(encrypted, ctx!, token, &out), JWTK_OK)
            XCTAssertEqual(text(out.iss), "https://issuer.example")
            XCTAssertEqual(out.exp, 4_102_444_800)
            XCTAssertNotNil(text(out.claims_json)?.range(of: "\"sub\":\"user-1\""))
            XCTAssertEqual(verify(nested, ctx!, token, &out), JWTK_MALFORMED, "no cty JWT")
        }
        // Tampered: the one decryption error, its HTTP answer, and nothing reported.
        var bad = Array(tokens("nested")[0].split(separator: ".", omittingEmptySubsequences: false).map(String.init))
        var tag = Array(bad[4])
        tag[3] = tag[3] == "A" ? "B" : "A"
        bad[4] = String(tag)
        XCTAssertEqual(verify(nested, ctx!, bad.joined(separator: "."), &out), JWTK_DECRYPTION_FAILED)
        XCTAssertNil(out.sub.ptr)
        XCTAssertEqual(jwtk_status_http(JWTK_DECRYPTION_FAILED), 401)
        // The refusals by design.
        for c in fixture["refused"] as! [[String: Any]] {
            let code = JWTErrorCode(name: c["code"] as! String)!.number
            XCTAssertEqual(verify(nested, ctx!, c["token"] as! String, &out), code, c["case"] as! String)
        }
        // A signed verifier does not take a JWE, and the batch path agrees with jwtk_verify.
        let nestedTokens = tokens("nested").prefix(8).map { $0 } + [bad.joined(separator: ".")]
        var statuses = [Int32](repeating: -99, count: nestedTokens.count)
        let pointers = nestedTokens.map { strdup($0) }
        defer { for p in pointers { free(p) } }
        let lengths = nestedTokens.map { $0.utf8.count }
        pointers.map { UnsafePointer($0) }.withUnsafeBufferPointer { p in
            XCTAssertEqual(
                jwtk_verify_batch(nested, p.baseAddress, lengths, nestedTokens.count, Self.now, &statuses), JWTK_OK)
        }
        XCTAssertEqual(statuses, [Int32](repeating: JWTK_OK, count: 8) + [JWTK_DECRYPTION_FAILED])
    }

    func testTokenTypeConfig() {
        var ks: OpaquePointer?, v: OpaquePointer?
        XCTAssertEqual(jwtk_keystore_new(&ks), JWTK_OK)
        defer { jwtk_keystore_free(ks) }
        let bad = #"{"token_type":"jwe"}"#
        XCTAssertEqual(jwtk_verifier_new(bad, bad.utf8.count, ks, &v), JWTK_E_CONFIG)
        let signed = #"{"token_type":"signed"}"#
        XCTAssertEqual(jwtk_verifier_new(signed, signed.utf8.count, ks, &v), JWTK_OK)
        jwtk_verifier_free(v)
    }
}
