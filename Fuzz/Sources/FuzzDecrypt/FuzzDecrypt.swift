import Foundation
// FuzzDecrypt: bytes through JWEDecryptor.decrypt and the nested and encrypted-only verifier paths, with a fixed
// decryption key set (throwaway keys from Tests/JWTKernelTests/Fixtures/jwe/jwcrypto.json: A128KW, A256KW, dir
// A128GCM and A128CBC-HS256, P-256 and X25519 for ECDH-ES, RSA 2048 for RSA-OAEP). First byte 0x01: the rest is
// a protected header JSON that the harness encodes and puts in front of a seed token's other four segments
// (the header is fuzzed as JSON, the AAD changes with it); anything else: the whole input is a token.
//
// Invariants: decryption is deterministic (outcome, code, plaintext); a success reports the header's alg and
// enc, a key of the set, and a plaintext no longer than the token; every failure past the header is
// `decryption_failed` with the one detail, or a structure code that needs no key (malformed, unsupported_alg,
// crit_unsupported, unknown_kid, key_alg_mismatch, too_large); a decrypted token with one bit of its tag flipped
// fails as `decryption_failed`; a header edit is never accepted (mode 1: success only with the seed's own header
// bytes); the nested and encrypted-only paths never accept what the decryptor refuses.
import FuzzSupport
@_spi(Internals) import JWTKernel

let decryptionKeys = try! DecryptionKeySet(
    document: Array(
        #"{"keys":[{"kty":"oct","use":"enc","kid":"kw-128","k":"KMTO0R0lZqjlkrlT8C2Lhg"},{"kty":"oct","use":"enc","kid":"kw-256","k":"zoXhAWdb4HKtTaEJb957JkLqQQLfuqLiJj2FXp65lno"},{"kty":"oct","use":"enc","kid":"dir-A128GCM","k":"6jmBzBRAk7l6wZFoSbXZOA"},{"kty":"oct","use":"enc","kid":"dir-A128CBC-HS256","k":"hFj6DEMEo1g4qnPYb81QWeGV28hf4w8BR2fi4N2Wi0s"},{"kty":"RSA","use":"enc","kid":"rsa","n":"xoJvo-t_cVyfxkxfspEUVOGGvA78Kd3P74KYfYv1GXsa0yA6zABFkRQSsEShQl7LIaT3Veu3H7OY5F4V3XXPuSiH1Lvq3MH53q3tUQZnBRc7hRzke2pp4Q-9D72FaZfBTf-I3ITd3pduRQMJjGqkLX0Qhs2tkiwY8QkegKFQl410pihpGbf_llUCO0ndf2GZ1139gf_f5ow1wrPtiTKqcUa6mkM8fBwNwym30Yc7NrZndjjeYaae9BySCmA6QXp_BgnF7jJ4MaZuL-eCKunwbBaq97sFlUpGWkSXhadNjFUkfoW7dIHMqWpZSrordMnYd7gifOzkB20dVPFYPsfZhQ","e":"AQAB","d":"ARhQGFXgtpXdtcDPGFOPiqZR0XC9uFdmYbpVMAAZIoJY1AhN-rkXqSS0s681OoH-WdmomZs6v9yEP-I6-aVAN5O_KA-_TGdvguhvsi44XEFUDThrFDkyi1DEaLVRapMxOEZsEVdUR_mK3KuXHmSqMiwJ7sxspC1FF_NGbUw2fxeAqq9Wf0O4diinEoqHFo0HLc3PMf58K3oyQ-7YDlnoTNe4yNObz_mNZhorxc4ym1hLJp8C_SOgRrPON0yA7OpFzbxch1o_x5o0ZrfFrOMKwtLeqcN6QaG_qf17J2ca18eTzjDlSV2La5p5Sz8DDJ5PtPBld6mQ9MaCPybt9nrKwQ","p":"8Lh7Pl8fqy3GKVrv-27usVwSjPCrjJVvq5La6hbOamzULw6yeTzq8LOpKYWG9y1cHgGLB4f7Na6lnX0BFx6wtkZPKbNyZNh3y_pz2qNg3FCfDXdVL8rJCbB7dxWAn0MuGBZULHxmkNxsLrBMm0kap-lYC1AiycMNpAfmzSev0uU","q":"0xwOw5538sSJue8mzdN2_o23FKViX2HZF7o3NOE-nEFVa6TH5piEDsmy7H-3vc9apN5vFtT8M5KYppSm21CtqCrl-Y4d0C2kL4qpjNxcXBSlp6zpifC97eNl4dkhMhXeDDeKzXTcto_P2seInj3XUxQlBn3ZmSPSiMQ9zbi6YiE","dp":"LZYSKNakzasGevBwwAHbDBVuoeg15JKsKibOdERLZNYlPKAg5lrF9z1ezLEvxQF_D2Ola5Cx3xGq5W811KYIOwyHk1MbV8OytBtC82W7Qx21cTxnEnzpo38bcorM59w2D3OzDxWj6s0DY7gZWdL3TFMhTEspu2HH5IdmivV4E40","dq":"0scezp24MUGeKXDoE3VhR8MC2rBNyeIOOSyJ1lhWhPiOaw15MXlx0Ln91TenovIXFKmpzOgWbv-dPiUJe8vPtyott773cVVAqt8NbkDOTnmm9AUmn70oRQ5YOOjrxfAjZZtHEN_vRq_L3ip-80_XX3GrjhG1Yrtrh3Y4JuCb50E","qi":"e4J1-u_7DWa4baxN_yWl_rTClIsKOJ3JmGQjcjdsD-BSihrKa0bild1OiAA8LtIDHtw8XnYRKR2afEXvJ8Ej2eQu2MEklaKeehnYk9LZwFoQ75zB39ItGMv4y0hJmutbwkmSlO750883HmXw8VWk-bbBlcPfGtpa7T5KnPE7WXA"},{"kty":"EC","use":"enc","kid":"ec-P-256","crv":"P-256","x":"IciqnVO64_znQk33UVmnd65oSzzvKfJX2YAT0TLtPVM","y":"r2Kb_Yr7up2tu_JDOy4G2alRCVbiTuQzCxb6ndIXqH8","d":"3vgTWtEVJo8o1ax0IFtnaiD6hli4F_Yoaa2MrsoMkN4"},{"kty":"OKP","use":"enc","kid":"x25519","crv":"X25519","x":"a9wmq7_bnw43mHu51n3-1qkPVYrjtHNCAnP4lN2mORI","d":"QBSdiBU0W6fI6Xpq8IXXUlGZXw9-qquLEOOT-eCGf2o"}]}"#
            .utf8))
let decryptor = JWEDecryptor(keys: decryptionKeys)
let verifier = JWTVerifier(
    keys: try! JWKSet(
        json: Array(
            #"{"keys":[{"kty":"EC","use":"sig","kid":"sig-1","crv":"P-256","x":"_56ZEp44IwBjYqIbdZsQL3vRU5W75TVfI0FbhcMw990","y":"9A1Cvu35F5eoPcoOylklzOlATrHb8IXdyxgt9e0ATuE","alg":"ES256"}]}"#
                .utf8)), clock: FixedClock(1_800_000_000))
/// A128KW + A128GCM, kid kw-128 (its header is replaced in mode 1).
let seedParts =
    "eyJhbGciOiAiQTEyOEtXIiwgImVuYyI6ICJBMTI4R0NNIiwgImtpZCI6ICJrdy0xMjgifQ.oGFmb-YXmHjugOwSDKf_0EJWNo3Fk0bc.EhWLsoLTMy45pTfe.RqWSeo9rs5vU8AoL1BQLCnubsL2mgafXLzhuhkpBbdQEYWDOnfmX_iTz4Hj-gzki6In658sSTLfxgktgjtGzuM-SmqaW6rCPzP0NXEmuX7w5NZnY-obu_36R7rbQm_f76a24.M2tzn7BYX4O-yA9pnIkAJg"
    .split(separator: ".", omittingEmptySubsequences: false).map(String.init)

let keyFreeCodes: Set<JWTErrorCode> = [
    .malformed, .unsupportedAlg, .critUnsupported, .unknownKid, .keyAlgMismatch, .tooLarge,
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecrypt(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = size > 0 ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    let token: [UInt8]
    if input.first == 0x01 {
        let header = Base64URL.encode(input.dropFirst())
        token = Array(([header] + seedParts.dropFirst()).joined(separator: ".").utf8)
    } else {
        token = input
    }
    let first = outcome(token), second = outcome(token)
    require(first == second, "decryption is not deterministic")

    switch first {
    case .success(let jwe):
        require(decryptionKeys.keys.contains { $0 === jwe.key }, "decrypted by a key outside the set")
        require(jwe.plaintext.count <= token.count, "plaintext longer than the token")
        if input.first == 0x01 {
            require(Array(input.dropFirst()) == Base64URL.decode(seedParts[0])!, "an edited header decrypted")
        }
        // One bit of the tag flipped: the one decryption error.
        var parts = String(decoding: token, as: UTF8.self).split(separator: ".", omittingEmptySubsequences: false).map(
            String.init)
        var tag = Base64URL.decode(parts[4])!
        tag[tag.count / 2] ^= 0x10
        parts[4] = Base64URL.encode(tag)
        if case .failure(let e) = outcome(Array(parts.joined(separator: ".").utf8)) {
            require(e.code == .decryptionFailed, "a flipped tag bit gave \(e), not decryption_failed")
        } else {
            invariantFailed("a flipped tag bit decrypted")
        }
    case .failure(let error):
        if error.code == .decryptionFailed {
            require(error == JWEDecryptor.failed, "a decryption failure with another detail: \(error)")
        } else {
            require(keyFreeCodes.contains(error.code), "unexpected code \(error)")
        }
        // What the decryptor refuses, the verifier's JWE paths refuse too.
        token.withUnsafeBytes { t in
            require(verifier.checkNested(t, decryptor: decryptor) != nil, "nested accepted a refused JWE")
            require(
                (try? verifier.verifyEncrypted(t, decryptor: decryptor)) == nil, "encrypted-only accepted a refused JWE"
            )
        }
    }
    // The nested and encrypted-only paths on every input: no crash, and never both (a token is one or the other).
    token.withUnsafeBytes { t in
        let nested = verifier.checkNested(t, decryptor: decryptor) == nil
        let encrypted = (try? verifier.verifyEncrypted(t, decryptor: decryptor)) != nil
        require(!(nested && encrypted), "one token accepted as nested and as encrypted-only")
    }
    return 0
}

enum Outcome: Equatable {
    case success(DecryptedJWE)
    case failure(JWTError)

    static func == (a: Outcome, b: Outcome) -> Bool {
        switch (a, b) {
        case (.success(let x), .success(let y)): x.plaintext == y.plaintext && x.header == y.header && x.key === y.key
        case (.failure(let x), .failure(let y)): x == y
        default: false
        }
    }
}

func outcome(_ token: [UInt8]) -> Outcome {
    token.withUnsafeBytes { t in
        do throws(JWTError) { return .success(try decryptor.decrypt(t)) } catch { return .failure(error) }
    }
}

#if !FUZZING
@main struct Replay {
    static func main() { FuzzReplay.run("FuzzDecrypt", fuzzDecrypt) }
}
#endif
