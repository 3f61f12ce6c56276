import XCTest

@_spi(Internals) @testable import JWTKernel

final class BatchVerificationTests: XCTestCase {
    let minter = HS256Minter(secret: Array("0123456789abcdef0123456789abcdef".utf8), kid: "k1")
    let now: Int64 = 1_700_000_000

    /// A mix of valid and invalid tokens whose verdicts are known one by one.
    func mixedTokens() -> [String] {
        (0..<500).map { i in
            switch i % 5 {
            case 0: minter.token(claims: #"{"aud":"app","exp":\#(now - 1)}"#)  // expired
            case 1: minter.token(claims: #"{"aud":"nope","exp":\#(now + 60),"i":\#(i)}"#)  // bad audience
            case 2: String(minter.token(claims: #"{"aud":"app","exp":\#(now + 60)}"#).dropLast(2)) + "AA"
            case 3: "not.a.token!"
            default: minter.token(claims: #"{"aud":"app","exp":\#(now + 60),"i":\#(i)}"#)
            }
        }
    }

    func testResultsMatchSequentialVerificationInOrder() throws {
        for cache in [nil, VerifiedTokenCache()] {
            let verifier = JWTVerifier(
                keys: try minter.keySet, policy: ClaimsPolicy(audiences: ["app"], leeway: 0),
                clock: FixedClock(now), cache: cache)
            let tokens = mixedTokens()
            let expected = tokens.map { t -> JWTErrorCode? in
                verifier.check(t)?.code
            }
            XCTAssertEqual(expected.filter { $0 == nil }.count, 100)
            for threads in [1, 2, 4] {
                let got = verifier.verifyBatch(tokens, threads: threads).map { $0?.code }
                XCTAssertEqual(got, expected, "threads=\(threads)")
            }
        }
    }

    func testEmptyBatch() throws {
        let verifier = JWTVerifier(keys: try minter.keySet)
        XCTAssertEqual(verifier.verifyBatch([]).count, 0)
    }
}
