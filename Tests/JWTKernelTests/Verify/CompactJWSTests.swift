import XCTest

@_spi(Internals) @testable import JWTKernel

/// `CompactJWS` finds the first dot from the start and the last from the end (16 bytes at a
/// time, `jkernel_last_byte`): its segments must be those of a plain first/last-index split,
/// at every length around the block size and every dot position, and a token of four or more
/// segments must still be `malformed` through the verifier.
final class CompactJWSTests: XCTestCase {
    func testSegmentsMatchAPlainSplit() {
        var rng = SystemRandomNumberGenerator()
        for length in 0...80 {
            for _ in 0..<60 {
                var token = (0..<length).map { _ in UInt8(ascii: "A") + UInt8.random(in: 0..<26, using: &rng) }
                for _ in 0..<Int.random(in: 0...4, using: &rng) where length > 0 {
                    token[Int.random(in: 0..<length, using: &rng)] = UInt8(ascii: ".")
                }
                let first = token.firstIndex(of: UInt8(ascii: ".")), last = token.lastIndex(of: UInt8(ascii: "."))
                let parsed = token.withUnsafeBytes { raw in
                    Result { () throws(JWTError) in
                        let jws = try CompactJWS(raw)
                        return [jws.header, jws.payload, jws.signature, jws.signingInput].map {
                            raw.baseAddress!.distance(to: $0.baseAddress!)..<raw.baseAddress!.distance(
                                to: $0.baseAddress!)
                                + $0.count
                        }
                    }
                }
                let described = String(decoding: token, as: UTF8.self)
                guard let first, let last, first != last, first > 0 else {
                    guard case .failure(let error) = parsed else { return XCTFail("accepted \(described)") }
                    XCTAssertEqual(error.code, .malformed, described)
                    continue
                }
                XCTAssertEqual(
                    try? parsed.get(), [0..<first, (first + 1)..<last, (last + 1)..<length, 0..<last], described)
            }
        }
    }

    func testFourOrMoreSegmentsAreMalformed() {
        let secret = [UInt8](repeating: 0x42, count: 32)
        let verifier = JWTVerifier(
            keys: JWKSet(keys: [try! VerificationKey(hmacSecret: secret, kid: "k")]), clock: FixedClock(1_700_000_000))
        let token = AttackSigner.token(
            header: #"{"alg":"HS256","kid":"k"}"#, claims: #"{"exp":1700003600}"#, key: secret)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for bad in [
            parts[0] + "." + parts[1] + ".x." + parts[2], parts[0] + ".x." + parts[1] + "." + parts[2],
            token + ".", token + "..", parts[0] + "." + parts[1] + "." + parts[2] + ".x.y",
        ] {
            XCTAssertEqual(verifier.check(bad)?.code, .malformed, bad)
        }
        XCTAssertNil(verifier.check(token))
    }
}
