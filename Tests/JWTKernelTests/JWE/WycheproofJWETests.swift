import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

/// Wycheproof's JSON Web Encryption vectors (Fixtures/wycheproof/json_web_encryption_test.json, Apache License
/// 2.0): each group's private JWK loaded as a decryption key, each token decrypted by `JWEDecryptor` and its
/// plaintext compared. The kernel refuses by design what some valid vectors use: RSA1_5 keys and tokens
/// (Bleichenbacher), `zip` (decompression bombs); those vectors are listed below and asserted refused.
final class WycheproofJWETests: XCTestCase {
    func testJSONWebEncryption() throws {
        let file = try WycheproofFile("json_web_encryption_test.json")
        var codes: [Int: JWTErrorCode] = [:]
        Wycheproof.run(
            file, expectedCount: 139,
            divergences: [
                WycheproofDivergence(
                    [100, 101, 102, 103, 104, 105, 112, 128], wycheproofSays: .valid, kernelAccepts: false,
                    why:
                        "RSA1_5 (PKCS #1 v1.5 key transport) is refused: keys declaring it never load, tokens using it never decrypt"
                ),
                WycheproofDivergence(
                    [135], wycheproofSays: .valid, kernelAccepts: false,
                    why: "zip (compressed plaintext) is refused: decompression bombs"),
            ]
        ) { group in
            let jwk = group.fields["private"] as! [String: Any]
            let keys: DecryptionKeySet?
            do { keys = try DecryptionKeySet(document: Wycheproof.jsonBytes(jwk)) } catch {
                XCTAssertEqual(jwk["alg"] as? String, "RSA1_5", "group \(group.index): key refused: \(error)")
                keys = nil
            }
            return { v in
                guard let keys else { return .rejected("key refused") }
                guard let token = v.fields["jwe"] as? String else {
                    return .rejected("JSON serialization: compact only")
                }
                do {
                    let jwe = try JWEDecryptor(keys: keys).decrypt(token)
                    return jwe.plaintext == v.hex("pt") ? .accepted : .rejected("decrypted to other bytes")
                } catch {
                    codes[v.tcId] = (error as? JWTError)?.code
                    return .rejected("\(error)")
                }
            }
        }
        // The refusals by design say so, and tampering is the one decryption error, never a hint at the step.
        for id in [94, 110, 111, 122] { XCTAssertEqual(codes[id], .unsupportedAlg, "tcId \(id)") }
        XCTAssertEqual(codes[135], .unsupportedAlg, "zip")
        for id in [2, 10, 13, 16, 36, 39, 42, 45, 51, 137, 138, 139] {
            XCTAssertEqual(codes[id], .decryptionFailed, "tcId \(id)")
        }
    }
}
