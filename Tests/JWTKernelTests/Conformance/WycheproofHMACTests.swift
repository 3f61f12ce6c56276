import XCTest

@_spi(Internals) @testable import JWTKernel

/// Wycheproof HMAC-SHA-2 vectors, run as HS256 / HS384 / HS512.
///
/// Two JOSE rules make the kernel refuse vectors that are valid HMACs:
///
/// * RFC 7518 §3.2: the key must be at least as long as the hash output.
///   A shorter key is refused when it is loaded, so every vector of such a
///   group is rejected ("key refused" counts as a rejection).
/// * RFC 7518 §3.2: the JWS signature is the full HMAC output. A truncated
///   tag never verifies, whatever the key.
///
/// The valid vectors these rules reject are listed by tcId below, per file,
/// and asserted rejected; the invalid vectors of the same groups are
/// rejected as Wycheproof expects.
final class WycheproofHMACTests: XCTestCase {
    /// tcIds of valid vectors with a truncated tag (tagSize = hash/2), with
    /// keys of the hash length (82-108) and of 520 bits (172-174). The
    /// layout is the same in all three files.
    private static let truncatedTag = Array(82...108) + Array(172...174)
    /// tcIds of valid vectors keyed with half the hash length (163-168; 166-168
    /// also have a truncated tag, and either rule alone rejects them).
    private static let shortKey = Array(163...168)

    private static func divergences(_ alg: JWTAlgorithm) -> [WycheproofDivergence] {
        [
            WycheproofDivergence(
                shortKey, wycheproofSays: .valid, kernelAccepts: false,
                why: "\(alg.rawValue) keys shorter than \(alg.hashLength) bytes are refused at load (RFC 7518 §3.2)"),
            WycheproofDivergence(
                truncatedTag, wycheproofSays: .valid, kernelAccepts: false,
                why:
                    "a JWS \(alg.rawValue) signature is the full \(alg.hashLength)-byte HMAC; truncated tags never verify"
            ),
        ]
    }

    func testHMACSHA256() throws {
        try runHMAC("hmac_sha256_test.json", alg: .hs256, count: 174)
    }

    func testHMACSHA384() throws {
        try runHMAC("hmac_sha384_test.json", alg: .hs384, count: 174)
    }

    func testHMACSHA512() throws {
        try runHMAC("hmac_sha512_test.json", alg: .hs512, count: 174)
    }

    private func runHMAC(_ name: String, alg: JWTAlgorithm, count: Int, line: UInt = #line) throws {
        let file = try WycheproofFile(name)
        let hashBits = alg.hashLength * 8
        var refusedKeyVectors = 0
        var truncatedTagVectors = 0
        let tally = Wycheproof.run(file, expectedCount: count, divergences: Self.divergences(alg), line: line) {
            group in
            let keyBits = group.int("keySize") ?? -1, tagBits = group.int("tagSize") ?? -1
            if keyBits < hashBits { refusedKeyVectors += group.tests.count }
            if tagBits < hashBits { truncatedTagVectors += group.tests.count }
            return { vector in
                let secret = vector.hex("key")
                XCTAssertEqual(secret.count * 8, keyBits, "\(name) \(vector.label): key size", line: line)
                XCTAssertEqual(vector.hex("tag").count * 8, tagBits, "\(name) \(vector.label): tag size", line: line)
                let key: VerificationKey
                do {
                    key = try VerificationKey(hmacSecret: secret, kid: "wycheproof", algorithm: alg)
                } catch {
                    XCTAssertLessThan(
                        keyBits, hashBits, "\(name) \(vector.label): a key of the hash length was refused: \(error)",
                        line: line)
                    return .rejected("key refused: \(error)")
                }
                XCTAssertGreaterThanOrEqual(
                    keyBits, hashBits, "\(name) \(vector.label): a short key was loaded", line: line)
                return WycheproofPrimitive.verify(
                    alg, key: key, message: vector.hex("msg"), signature: vector.hex("tag"),
                    label: "\(name) \(vector.label)")
            }
        }
        // Pin the shape of the file the lists above were written against.
        XCTAssertEqual(refusedKeyVectors, 6, "\(name): vectors whose key is shorter than the hash", line: line)
        XCTAssertEqual(truncatedTagVectors, 81 + 3 + 3, "\(name): vectors with a truncated tag", line: line)
        XCTAssertEqual(tally.diverging, Self.shortKey.count + Self.truncatedTag.count, line: line)
    }
}
