import XCTest

@_spi(Internals) @testable import JWTKernel

/// The per-thread header memo (`HeaderMemo`): a token's outcome must not depend on the token
/// verified before it on the same thread, whether that one had the same header segment (memo
/// hit), one differing in a single byte, or one that failed to parse.
final class HeaderMemoTests: XCTestCase {
    let k1 = [UInt8](repeating: 0x41, count: 48), k2 = [UInt8](repeating: 0x42, count: 48)

    func testOutcomesDoNotDependOnThePreviousHeader() throws {
        let keys = JWKSet(keys: [
            try VerificationKey(hmacSecret: k1, kid: "k1"), try VerificationKey(hmacSecret: k2, kid: "k2"),
        ])
        let verifier = JWTVerifier(
            keys: keys, policy: ClaimsPolicy(algorithms: AlgorithmSet([.hs256, .hs384])),
            clock: FixedClock(1_700_000_000))
        let claims = #"{"exp":1700003600,"sub":"a"}"#
        let tokens = [
            AttackSigner.token(header: #"{"alg":"HS256","kid":"k1"}"#, claims: claims, key: k1),
            AttackSigner.token(header: #"{"alg":"HS256","kid":"k2"}"#, claims: claims, key: k2),
            // Same header as the one before, wrong secret: the memo must not carry the verdict.
            AttackSigner.token(header: #"{"alg":"HS256","kid":"k2"}"#, claims: claims, key: k1),
            AttackSigner.token(header: #"{"alg":"HS384","kid":"k1"}"#, claims: claims, alg: .hs384, key: k1),
            AttackSigner.token(header: #"{"alg":"HS256","kid":"k3"}"#, claims: claims, key: k1),
            AttackSigner.token(header: #"{"alg":"none","kid":"k1"}"#, claims: claims, key: k1),
            AttackSigner.token(header: #"{"alg":"HS256","kid":"k1","crit":["x"]}"#, claims: claims, key: k1),
            AttackSigner.token(header: #"{"alg":"HS256", "kid":"k1"}"#, claims: claims, key: k1),
        ]
        func outcome(_ token: String) -> String {
            do throws(JWTError) {
                let v = try verifier.verify(token)
                return "ok \(v.algorithm) \(v.kid ?? "-") \(v.subject ?? "-")"
            } catch {
                return "\(error.code)"
            }
        }
        // Each token first after a memo miss (an unrelated header), then after every other token.
        let unrelated = AttackSigner.token(header: #"{"kid":"k1","alg":"HS256","typ":"JWT"}"#, claims: claims, key: k1)
        var cold: [String] = []
        for token in tokens {
            _ = outcome(unrelated)
            cold.append(outcome(token))
        }
        XCTAssertEqual(cold[0], "ok hs256 k1 a")
        XCTAssertEqual(cold[1], "ok hs256 k2 a")
        XCTAssertEqual(cold[2], "\(JWTErrorCode.badSignature)")
        for before in tokens + [unrelated] {
            for (i, token) in tokens.enumerated() {
                _ = outcome(before)
                XCTAssertEqual(outcome(token), cold[i], "after \(before)")
                XCTAssertEqual(outcome(token), cold[i], "twice, after \(before)")
            }
        }
    }
}
