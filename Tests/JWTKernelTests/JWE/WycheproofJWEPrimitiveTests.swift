import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

/// The primitives behind JWE decryption, held to Project Wycheproof's vectors (Fixtures/wycheproof, Apache
/// License 2.0): AES key wrap, AES-GCM, AES-CBC-HMAC-SHA2, RSA-OAEP and ECDH on the NIST curves. Every vector of
/// each file runs (`Wycheproof.run` asserts the count); where JWE's shape makes the kernel refuse a vector that
/// is a valid use of the primitive, the vectors are listed as divergences, with the rule.
final class WycheproofJWEPrimitiveTests: XCTestCase {
    private func bytes(_ v: WycheproofVector, _ name: String) -> [UInt8] { v.hex(name) }

    // MARK: AES key wrap (RFC 3394)

    func testAESKeyWrap() throws {
        let file = try WycheproofFile("aes_wrap_test.json")
        Wycheproof.run(
            file, expectedCount: 165,
            acceptable: WycheproofAcceptablePolicy(
                kernelAccepts: false,
                why:
                    "an 8-byte key wrapped as one AES block: RFC 3394 wraps two blocks or more, and JWE keys are 16+ bytes"
            )
        ) { _ in
            { v in
                let out = self.bytes(v, "key").withUnsafeBytes { k in
                    self.bytes(v, "ct").withUnsafeBytes { AESKeyWrap.unwrap(kek: k, wrapped: $0) }
                }
                guard let out else { return .rejected("unwrap failed") }
                let msg = self.bytes(v, "msg")
                return out.withBytes { Array($0) } == msg ? .accepted : .rejected("unwrapped to other bytes")
            }
        }
    }

    // MARK: AES-GCM

    func testAESGCM() throws {
        let file = try WycheproofFile("aes_gcm_test.json")
        // JWE fixes a 96-bit IV and a 128-bit tag (RFC 7518 §5.3); valid vectors of other IV sizes are refused.
        let otherIV = Set(
            file.groups.filter { $0.int("ivSize") != 96 || $0.int("tagSize") != 128 }
                .flatMap { $0.tests.filter { $0.result == .valid }.map(\.tcId) })
        XCTAssertGreaterThan(otherIV.count, 0)
        Wycheproof.run(
            file, expectedCount: 316,
            divergences: [
                WycheproofDivergence(
                    otherIV.sorted(), wycheproofSays: .valid, kernelAccepts: false,
                    why: "JWE's AES-GCM takes exactly a 96-bit IV and a 128-bit tag")
            ]
        ) { _ in
            { v in
                let out = self.bytes(v, "key").withUnsafeBytes { k in
                    self.bytes(v, "iv").withUnsafeBytes { iv in
                        self.bytes(v, "aad").withUnsafeBytes { aad in
                            self.bytes(v, "ct").withUnsafeBytes { ct in
                                self.bytes(v, "tag").withUnsafeBytes { tag in
                                    AESGCM.decrypt(key: k, iv: iv, aad: aad, ciphertext: ct, tag: tag)
                                }
                            }
                        }
                    }
                }
                guard let out else { return .rejected("tag does not verify") }
                return out == self.bytes(v, "msg") ? .accepted : .rejected("decrypted to other bytes")
            }
        }
    }

    // MARK: AES-CBC-HMAC-SHA2 (RFC 7518 §5.2)

    func testA128CBCHS256() throws { try runCBCHMAC("a128cbc_hs256_test.json", count: 94) }
    func testA192CBCHS384() throws { try runCBCHMAC("a192cbc_hs384_test.json", count: 94) }
    func testA256CBCHS512() throws { try runCBCHMAC("a256cbc_hs512_test.json", count: 94) }

    private func runCBCHMAC(_ name: String, count: Int, line: UInt = #line) throws {
        let file = try WycheproofFile(name)
        Wycheproof.run(file, expectedCount: count, line: line) { _ in
            { v in
                let out = self.bytes(v, "key").withUnsafeBytes { k in
                    self.bytes(v, "iv").withUnsafeBytes { iv in
                        self.bytes(v, "aad").withUnsafeBytes { aad in
                            self.bytes(v, "ct").withUnsafeBytes { ct in
                                self.bytes(v, "tag").withUnsafeBytes { tag in
                                    AESCBCHMAC.decrypt(key: k, iv: iv, aad: aad, ciphertext: ct, tag: tag)
                                }
                            }
                        }
                    }
                }
                guard let out else { return .rejected("tag or padding refused") }
                return out == self.bytes(v, "msg") ? .accepted : .rejected("decrypted to other bytes")
            }
        }
    }

    /// The tag is checked before decryption: a ciphertext with bad padding under a valid tag is impossible to
    /// make without the key, so the order shows as "a bad tag never reaches the padding check". Checked by
    /// counting: a forged tag over a ciphertext whose padding is bad is refused exactly like one whose padding
    /// is good (same nil, no other signal the primitive can give).
    func testCBCHMACRefusesBadTagWhateverThePadding() {
        let key = [UInt8](repeating: 7, count: 32), iv = [UInt8](repeating: 1, count: 16)
        for ct in [[UInt8](repeating: 0, count: 16), [UInt8](repeating: 0xFF, count: 32)] {
            let out = key.withUnsafeBytes { k in
                iv.withUnsafeBytes { i in
                    ct.withUnsafeBytes { c in
                        [UInt8](repeating: 0, count: 16).withUnsafeBytes { t in
                            AESCBCHMAC.decrypt(
                                key: k, iv: i, aad: UnsafeRawBufferPointer(start: nil, count: 0), ciphertext: c, tag: t)
                        }
                    }
                }
            }
            XCTAssertNil(out)
        }
    }

    // MARK: RSA-OAEP

    func testRSAOAEPSHA1() throws { try runOAEP("rsa_oaep_2048_sha1_mgf1sha1_test.json", hash: .sha1, count: 36) }
    func testRSAOAEPSHA256() throws {
        try runOAEP("rsa_oaep_2048_sha256_mgf1sha256_test.json", hash: .sha256, count: 37)
    }
    func testRSAOAEPSHA384() throws {
        try runOAEP("rsa_oaep_2048_sha384_mgf1sha384_test.json", hash: .sha384, count: 34)
    }
    func testRSAOAEPSHA512() throws {
        try runOAEP("rsa_oaep_2048_sha512_mgf1sha512_test.json", hash: .sha512, count: 33)
    }

    private func runOAEP(_ name: String, hash: RSAOAEP.Hash, count: Int, line: UInt = #line) throws {
        let file = try WycheproofFile(name)
        Wycheproof.run(file, expectedCount: count, line: line) { group in
            // The group's key through the JWK loader (the decryption key path), its material used directly so
            // the file's hash is the one tried whatever the JWK's `alg` says.
            var jwk =
                group.fields["privateKeyJwk"] as? [String: Any]
                ?? Self.jwk(rsa: group.fields["privateKey"] as! [String: Any])
            jwk.removeValue(forKey: "alg")
            let pkey: OpenSSLPrivateKey?
            do {
                let key = try DecryptionKey(jwkJSON: Wycheproof.jsonBytes(jwk))
                guard case .rsa(let k) = key.material else { fatalError("not RSA") }
                pkey = k
            } catch {
                XCTFail("\(name) group \(group.index): the private key is refused: \(error)", line: line)
                pkey = nil
            }
            return { v in
                guard let pkey else { return .rejected("key refused") }
                let out = self.bytes(v, "ct").withUnsafeBytes { c in
                    self.bytes(v, "label").withUnsafeBytes { l in
                        RSAOAEP.decrypt(pkey, hash: hash, ciphertext: c, label: l)
                    }
                }
                guard let out else { return .rejected("decryption refused") }
                return out.withBytes { Array($0) } == self.bytes(v, "msg") ? .accepted : .rejected("other plaintext")
            }
        }
    }

    /// A JWK from Wycheproof's hex RSA components (files without `privateKeyJwk`).
    private static func jwk(rsa c: [String: Any]) -> [String: Any] {
        func b64(_ name: String) -> String {
            Base64URL.encode(Wycheproof.hex(c[name] as! String).drop { $0 == 0 })
        }
        return [
            "kty": "RSA", "n": b64("modulus"), "e": b64("publicExponent"), "d": b64("privateExponent"),
            "p": b64("prime1"), "q": b64("prime2"), "dp": b64("exponent1"), "dq": b64("exponent2"),
            "qi": b64("coefficient"),
        ]
    }

    // MARK: ECDH (P-256/384/521), keys as JWKs the way ECDH-ES receives them

    func testECDHP256() throws { try runECDH("ecdh_secp256r1_webcrypto_test.json", count: 353) }
    func testECDHP384() throws { try runECDH("ecdh_secp384r1_webcrypto_test.json", count: 794) }
    func testECDHP521() throws { try runECDH("ecdh_secp521r1_webcrypto_test.json", count: 655) }

    private func runECDH(_ name: String, count: Int, line: UInt = #line) throws {
        let file = try WycheproofFile(name)
        Wycheproof.run(file, expectedCount: count, line: line) { group in
            let curve = EllipticCurve(rawValue: group.string("curve")!)!
            return { v in
                let priv = v.fields["private"] as! [String: Any], pub = v.fields["public"] as! [String: Any]
                let key: DecryptionKey
                do { key = try DecryptionKey(jwkJSON: Wycheproof.jsonBytes(priv)) } catch {
                    return .rejected("private key refused: \(error)")
                }
                guard case .ec(let pkey, let keyCurve) = key.material, keyCurve == curve else {
                    return .rejected("not an EC key on \(curve)")
                }
                // The public key as a JWE epk is read: kty, crv, x, y; anything off the curve is refused.
                guard pub["kty"] as? String == "EC", pub["crv"] as? String == curve.rawValue,
                    let x = (pub["x"] as? String).flatMap({ Base64URL.decode($0) }),
                    let y = (pub["y"] as? String).flatMap({ Base64URL.decode($0) })
                else { return .rejected("public key is not a \(curve.rawValue) JWK") }
                let peer: OpenSSLPublicKey
                do { peer = try OpenSSLPublicKey.ec(curve: curve, x: x, y: y) } catch {
                    return .rejected("public key refused: \(error)")
                }
                guard let z = ECDH.sharedSecret(pkey, peer: peer) else { return .rejected("derivation refused") }
                return z.withBytes { Array($0) } == self.bytes(v, "shared") ? .accepted : .rejected("other secret")
            }
        }
    }

    // MARK: X25519 small order (RFC 7748 §6.1)

    func testX25519SmallOrderPointsAreRefused() throws {
        let blocked = [
            "0000000000000000000000000000000000000000000000000000000000000000",
            "0100000000000000000000000000000000000000000000000000000000000000",
            "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
            "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
            "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
            "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
            "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
            // The same points with the top bit set, which RFC 7748 §5 masks away.
            "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b880",
            "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        ]
        for hex in blocked {
            XCTAssertNil(ECDH.x25519PublicKey(Wycheproof.hex(hex)), hex)
        }
        // RFC 7748 §6.1's Alice and Bob: a normal key loads and agrees.
        let alice = try DecryptionKey(
            jwkJSON: Array(
                #"{"kty":"OKP","crv":"X25519","d":"dwdtCnMYpX08FsFyUbJmRd9ML4frwJkqsXf7pR25LCo","x":"hSDwCYkwp1R0i33ctD73Wg2_Og0mOBr066SpjqqbTmo"}"#
                    .utf8))
        let bob = try XCTUnwrap(
            ECDH.x25519PublicKey(Wycheproof.hex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")))
        guard case .x25519(let pkey) = alice.material else { return XCTFail("not X25519") }
        let z = try XCTUnwrap(ECDH.sharedSecret(pkey, peer: bob))
        XCTAssertEqual(
            z.withBytes { Array($0) },
            Wycheproof.hex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"))
    }
}
