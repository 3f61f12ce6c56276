import XCTest

@_spi(Internals) @testable import JWTKernel

/// `CacheAttachment`: what a front end keeps with a cache entry (the C library's filled `jwtk_claims`). Set once,
/// seen by every later hit of that entry through its `CacheHold`, and gone with the entry.
final class CacheAttachmentTests: XCTestCase {
    let minter = HS256Minter(secret: Array("0123456789abcdef0123456789abcdef".utf8), kid: "k1")
    let now: Int64 = 1_700_000_000

    func verifier(_ cache: VerifiedTokenCache) throws -> JWTVerifier {
        JWTVerifier(
            keys: try minter.keySet, policy: ClaimsPolicy(issuers: ["https://issuer.example"], leeway: 0),
            clock: FixedClock(now), cache: cache)
    }

    func token(_ sub: String) -> [UInt8] {
        Array(minter.token(claims: #"{"iss":"https://issuer.example","sub":"\#(sub)","exp":\#(now + 60)}"#).utf8)
    }

    /// Verifies `token` holding its entry in `hold`; true on a cache hit.
    func verify(_ v: JWTVerifier, _ token: [UInt8], _ hold: CacheHold, at time: Int64? = nil) throws -> Bool {
        var outcome = CacheOutcome.notUsed
        hold.pointee.fresh = false
        try token.withUnsafeBytes { bytes in
            try v.verifyLending(bytes, at: time, cacheOutcome: &outcome, holding: hold) { _ in }
        }
        return outcome == .hit
    }

    func testAttachedOnceAndSeenByEveryLaterHit() throws {
        let v = try verifier(VerifiedTokenCache())
        let hold = CacheHold.allocate(capacity: 1)
        hold.initialize(to: HeldCacheEntry())
        defer { hold.deinitialize(count: 1); hold.deallocate() }
        let a = token("a"), b = token("b")

        XCTAssertFalse(try verify(v, a, hold), "the miss")
        XCTAssertFalse(hold.pointee.fresh, "a miss holds nothing")
        XCTAssertTrue(try verify(v, a, hold), "the first hit")
        XCTAssertTrue(hold.pointee.fresh)
        XCTAssertEqual(hold.pointee.attachment, 0, "nothing attached yet")
        let bytes = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 16)
        XCTAssertTrue(hold.pointee.attach(UInt(bitPattern: bytes)))
        let other = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 16)
        XCTAssertFalse(hold.pointee.attach(UInt(bitPattern: other)), "set at most once")
        other.deallocate()

        XCTAssertTrue(try verify(v, a, hold))
        XCTAssertEqual(hold.pointee.attachment, UInt(bitPattern: bytes), "a later hit sees it")
        // Another token's entry has its own (none), and the first entry keeps its own.
        XCTAssertFalse(try verify(v, b, hold))
        XCTAssertTrue(try verify(v, b, hold))
        XCTAssertEqual(hold.pointee.attachment, 0)
        XCTAssertTrue(hold.pointee.attach(CacheAttachment.declined))
        XCTAssertTrue(try verify(v, b, hold))
        XCTAssertEqual(hold.pointee.attachment, CacheAttachment.declined)
        XCTAssertTrue(try verify(v, a, hold))
        XCTAssertEqual(hold.pointee.attachment, UInt(bitPattern: bytes))
        // An expired hit drops the entry (and with its last reference, the bytes: ASan and valgrind see a leak or a
        // double free otherwise); the token verified again is a new entry without one.
        XCTAssertThrowsError(try verify(v, a, hold, at: now + 60))
        hold.pointee.entry = nil
        XCTAssertFalse(try verify(v, a, hold))
        XCTAssertTrue(try verify(v, a, hold))
        XCTAssertEqual(hold.pointee.attachment, 0, "a new entry starts without one")
    }
}
