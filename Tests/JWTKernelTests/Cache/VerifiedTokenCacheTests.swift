import XCTest

@_spi(Internals) @testable import JWTKernel

final class VerifiedTokenCacheTests: XCTestCase {
    let minter = HS256Minter(secret: Array("0123456789abcdef0123456789abcdef".utf8), kid: "k1")
    let now: Int64 = 1_700_000_000

    func claims(_ jti: Int, exp: Int64? = nil) -> String {
        #"{"iss":"https://issuer.example","aud":"app","iat":\#(now),"exp":\#(exp ?? now + 3600),"jti":"\#(jti)"}"#
    }

    func makeVerifier(
        cache: VerifiedTokenCache, clock: any JWTClock, audiences: [String] = ["app"]
    ) throws -> JWTVerifier {
        JWTVerifier(
            keys: try minter.keySet,
            policy: ClaimsPolicy(issuers: ["https://issuer.example"], audiences: audiences, leeway: 0),
            clock: clock, cache: cache)
    }

    func testHitReturnsTheSameVerifiedClaims() throws {
        let cache = VerifiedTokenCache()
        let verifier = try makeVerifier(cache: cache, clock: FixedClock(now))
        let token = minter.token(claims: claims(1))
        let first = try verifier.verify(token)
        XCTAssertEqual(cache.count, 1)
        let second = try verifier.verify(token)
        XCTAssertEqual(cache.count, 1)
        XCTAssertEqual(first.claimsJSON, second.claimsJSON)
        XCTAssertEqual(second.issuer, "https://issuer.example")
        XCTAssertEqual(second.kid, "k1")
        XCTAssertEqual(second.audiences, ["app"])
    }

    func testExpiryIsRecheckedOnEveryHit() throws {
        let cache = VerifiedTokenCache()
        let clock = MovableClock(now)
        let verifier = try makeVerifier(cache: cache, clock: clock)
        let token = minter.token(claims: claims(2, exp: now + 10))
        _ = try verifier.verify(token)
        XCTAssertEqual(cache.count, 1)
        clock.set(now + 10)
        XCTAssertThrowsError(try verifier.verify(token)) { XCTAssertEqual(($0 as? JWTError)?.code, .expired) }
        XCTAssertEqual(cache.count, 0, "an expired entry is dropped")
    }

    func testEntriesOfARemovedKeyStopHitting() throws {
        let cache = VerifiedTokenCache()
        let verifier = try makeVerifier(cache: cache, clock: FixedClock(now))
        let token = minter.token(claims: claims(3))
        _ = try verifier.verify(token)
        let other = HS256Minter(secret: Array("another secret of 32 bytes or more!!".utf8), kid: "k2")
        let rotated = verifier.replacingKeys(try other.keySet)
        XCTAssertThrowsError(try rotated.verify(token)) { XCTAssertEqual(($0 as? JWTError)?.code, .unknownKid) }
        XCTAssertEqual(cache.count, 0)
        // A key set that still holds the same key object keeps serving the entry.
        let kept = verifier.replacingKeys(verifier.keys.merging(try other.keySet))
        _ = try kept.verify(token)
        XCTAssertEqual(cache.count, 1)
    }

    func testAHashMatchNeverServesADifferentToken() throws {
        let cache = VerifiedTokenCache()
        let verifier = try makeVerifier(cache: cache, clock: FixedClock(now))
        let genuine = minter.token(claims: claims(4))
        var forged = Array(genuine.utf8)
        forged[forged.count - 5] ^= 0x01
        // Store the genuine token's verification under the forged token's hash, as a collision would.
        var genuineBytes = Array(genuine.utf8)
        let forgedHash = forged.withUnsafeBytes { cache.hash($0) }
        try genuineBytes.withUnsafeMutableBytes { g in
            try verifier.verify(UnsafeRawBufferPointer(g)) { verified in
                cache.insert(
                    UnsafeRawBufferPointer(g), hash: forgedHash, policy: verifier.policyFingerprint, verified: verified)
            }
        }
        // The slot answers to the forged token's hash, but the full comparison refuses it.
        let entry = try XCTUnwrap(cache.lookup(hash: forgedHash, policy: verifier.policyFingerprint))
        XCTAssertFalse(forged.withUnsafeBytes { entry.holds($0) }, "the full token is compared on a hit")
        XCTAssertTrue(genuineBytes.withUnsafeBytes { entry.holds($0) })
        XCTAssertThrowsError(try verifier.verify(String(decoding: forged, as: UTF8.self)))
    }

    func testMemoryIsBounded() throws {
        let cache = VerifiedTokenCache(.init(capacity: 64, shards: 4))
        let verifier = try makeVerifier(cache: cache, clock: FixedClock(now))
        for i in 0..<1000 { _ = try verifier.verify(minter.token(claims: claims(1000 + i))) }
        XCTAssertLessThanOrEqual(cache.count, 64)
        XCTAssertGreaterThan(cache.count, 16)
    }

    func testLargeTokensAreNotCached() throws {
        let cache = VerifiedTokenCache(.init(maxTokenSize: 200))
        let verifier = try makeVerifier(cache: cache, clock: FixedClock(now))
        let padded =
            #"{"iss":"https://issuer.example","aud":"app","exp":\#(now + 60),"pad":"\#(String(repeating: "x", count: 300))"}"#
        _ = try verifier.verify(minter.token(claims: padded))
        XCTAssertEqual(cache.count, 0)
    }

    func testASharedCacheDoesNotBypassAnotherPolicy() throws {
        let cache = VerifiedTokenCache()
        let lenient = try makeVerifier(cache: cache, clock: FixedClock(now))
        let strict = try makeVerifier(cache: cache, clock: FixedClock(now), audiences: ["other-app"])
        let token = minter.token(claims: claims(5))
        _ = try lenient.verify(token)
        XCTAssertThrowsError(try strict.verify(token)) { XCTAssertEqual(($0 as? JWTError)?.code, .badAudience) }
    }

    func testFailuresAreNotCached() throws {
        let cache = VerifiedTokenCache()
        let verifier = try makeVerifier(cache: cache, clock: FixedClock(now))
        XCTAssertThrowsError(try verifier.verify(minter.token(claims: claims(6, exp: now - 1))))
        XCTAssertEqual(cache.count, 0)
    }
}
