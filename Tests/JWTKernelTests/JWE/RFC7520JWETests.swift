import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

/// RFC 7520 section 5's compact JWE examples (Fixtures/rfc/rfc7520-jwe: each section's key, compact token and
/// the plaintext of its Figure 72), decrypted with the section's key. Sections 5.1 (RSA1_5) and 5.9 (`zip`)
/// are refused by design; 5.3 (PBES2) is refused by design too and not carried; 5.10-5.13 use only the JSON
/// serializations, which the kernel does not read.
final class RFC7520JWETests: XCTestCase {
    /// RFC 7520 Figure 72, typed in (the en dashes are U+2013).
    static let figure72 =
        "You can trust us to stick with you through thick and thin\u{2013}to the bitter end. And you can trust us to keep any secret of yours\u{2013}closer than you keep it yourself. But you cannot trust us to let you face trouble alone, and go off without a word. We are your friends, Frodo."

    func testSection5Examples() throws {
        let dir = Fixtures.url("rfc/rfc7520-jwe")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".json") }
            .sorted()
        XCTAssertEqual(names.count, 8)
        var decrypted: [String] = [], refused: [String: JWTErrorCode] = [:]
        for name in names {
            let v = try XCTUnwrap(Fixtures.json("rfc/rfc7520-jwe/\(name)") as? [String: Any])
            XCTAssertEqual(v["plaintext"] as? String, Self.figure72, name)
            let section = v["section"] as! String
            let keys: DecryptionKeySet
            do { keys = try DecryptionKeySet(document: Wycheproof.jsonBytes(v["key"]!)) } catch {
                XCTAssertEqual(v["alg"] as? String, "RSA1_5", "\(name): \(error)")
                refused[section] = .unsupportedAlg
                continue
            }
            do {
                let jwe = try JWEDecryptor(keys: keys).decrypt(v["token"] as! String)
                XCTAssertEqual(String(decoding: jwe.plaintext, as: UTF8.self), Self.figure72, name)
                XCTAssertEqual(jwe.keyManagement.rawValue, v["alg"] as? String, name)
                XCTAssertEqual(jwe.contentEncryption.rawValue, v["enc"] as? String, name)
                decrypted.append(section)
            } catch {
                refused[section] = error.code
            }
        }
        XCTAssertEqual(decrypted, ["5.2", "5.4", "5.5", "5.6", "5.7", "5.8"])
        XCTAssertEqual(refused, ["5.1": .unsupportedAlg, "5.9": .unsupportedAlg])
    }
}
