import COpenSSL
import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

/// Ed25519 public keys of small order are refused when a key set loads, naming the key: under the
/// identity, R = identity and S = 0 is a valid signature of every message, so such a key would accept
/// any token anyone writes. The refused set is checked against C2SP CCTV's Ed25519 vectors
/// (`Fixtures/cctv`: every key flagged `low_order_A`, and no other).
final class Ed25519SmallOrderKeyTests: XCTestCase {
    static let identity: [UInt8] = [1] + [UInt8](repeating: 0, count: 31)

    static func jwk(_ x: [UInt8], kid: String? = nil) -> String {
        let kidMember = kid.map { #","kid":"\#($0)""# } ?? ""
        return #"{"kty":"OKP","crv":"Ed25519","x":"\#(Base64URL.encode(x))"\#(kidMember)}"#
    }

    /// A token whose signature is R = identity, S = 0, over any claims.
    static func forgedToken(kid: String) -> String {
        let header = Base64URL.encode(Array(#"{"alg":"EdDSA","kid":"\#(kid)"}"#.utf8))
        let claims = Base64URL.encode(Array(#"{"sub":"anyone","exp":4000000000}"#.utf8))
        return header + "." + claims + "." + Base64URL.encode(identity + [UInt8](repeating: 0, count: 32))
    }

    func testOpenSSLAcceptsRIdentitySZeroUnderTheIdentityKeyForAnyMessage() throws {
        // Why the keys are refused at load: the signature check itself does not refuse them.
        let pkey = try XCTUnwrap(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, Self.identity, 32))
        defer { EVP_PKEY_free(pkey) }
        let signature = Self.identity + [UInt8](repeating: 0, count: 32)
        for message in ["any claims", "other claims", ""] {
            let ctx = EVP_MD_CTX_new()
            defer { EVP_MD_CTX_free(ctx) }
            XCTAssertEqual(EVP_DigestVerifyInit(ctx, nil, nil, nil, pkey), 1)
            let bytes = Array(message.utf8)
            XCTAssertEqual(EVP_DigestVerify(ctx, signature, 64, bytes, bytes.count), 1, message)
        }
    }

    func testTheForgedTokenFindsNoKeyBecauseTheKeyIsRefusedNamingIt() throws {
        let good = try KeyKit.key(try KeySetTests.jwk("ed25519"))
        XCTAssertEqual(good.type, .okp(.ed25519))
        let set = try JWKSet(json: Array(#"{"keys":[\#(Self.jwk(Self.identity, kid: "low"))]}"#.utf8))
        XCTAssertTrue(set.keys.isEmpty)
        let refusal = try XCTUnwrap(set.rejected.first)
        XCTAssertEqual(refusal.code, .weakKey)
        XCTAssertEqual(refusal.kid, "low")
        XCTAssertTrue(refusal.reason.contains("small order"), refusal.reason)
        let verifier = JWTVerifier(keys: set, policy: ClaimsPolicy(), clock: FixedClock(1_700_000_000))
        XCTAssertEqual(verifier.check(Self.forgedToken(kid: "low"))?.code, .unknownKid)
        // Without a kid the refusal names the key by its index.
        let unnamed = try JWKSet(json: Array(#"{"keys":[\#(Self.jwk(Self.identity))]}"#.utf8))
        XCTAssertEqual(unnamed.rejected.first?.kid, "#0")
    }

    func testAPEMKeyOfSmallOrderIsRefused() throws {
        let spki: [UInt8] = [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00] + Self.identity
        let pem = "-----BEGIN PUBLIC KEY-----\n\(Data(spki).base64EncodedString())\n-----END PUBLIC KEY-----\n"
        XCTAssertThrowsError(try VerificationKey(pem: pem)) { error in
            XCTAssertEqual((error as? KeyError)?.code, .weakKey, "\(error)")
        }
        XCTAssertThrowsError(try KeyDocument(Array(pem.utf8)).keySet()) { error in
            XCTAssertEqual((error as? KeyError)?.code, .weakKey, "\(error)")
        }
    }

    func testEveryLowOrderKeyOfTheCCTVVectorsIsRefusedAndNoOther() throws {
        let keys = try XCTUnwrap(try Fixtures.json("cctv/ed25519-public-keys.json") as? [[String: Any]])
        XCTAssertEqual(keys.count, 22)
        var refused = 0
        for entry in keys {
            let hex = try XCTUnwrap(entry["key"] as? String)
            let flags = try XCTUnwrap(entry["flags"] as? [String])
            let x = stride(from: 0, to: hex.count, by: 2).map { i -> UInt8 in
                let start = hex.index(hex.startIndex, offsetBy: i)
                return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
            }
            XCTAssertEqual(Ed25519SmallOrder.contains(x), flags.contains("low_order_A"), hex)
            do {
                _ = try VerificationKey(jwkJSON: Array(Self.jwk(x).utf8))
                XCTAssertFalse(flags.contains("low_order_A"), "a low-order key loaded: \(hex)")
            } catch {
                XCTAssertTrue(flags.contains("low_order_A"), "\(hex) \(flags): \(error)")
                XCTAssertEqual(error.code, .weakKey, hex)
                refused += 1
            }
        }
        XCTAssertEqual(refused, 14, "eight points, fourteen encodings")
    }
}
