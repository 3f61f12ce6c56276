import CJWTK
import Foundation
import JWTKernel
import XCTest

@testable import JWTKernelC

/// What `stale_served` counts through the C functions: every verification of a token whose issuer's
/// keys were past their refresh time, whichever path answered it (full verification, a verified-token
/// cache hit, or a rejection). The keys are published stale into the keystore's own store, as the
/// refresher does when fetches keep failing (the end-to-end case with a failing server is in
/// IntegrationTests/clib/test_pull.c).
final class StaleServedTests: XCTestCase {
    static let issuer = "https://issuer.example"

    func staleServed(_ v: OpaquePointer?) -> UInt64 {
        var s = jwtk_stats()
        s.struct_size = UInt32(MemoryLayout<jwtk_stats>.size)
        XCTAssertEqual(jwtk_stats_get(v, &s), JWTK_OK)
        return s.stale_served
    }

    func cacheHits(_ v: OpaquePointer?) -> UInt64 {
        var s = jwtk_stats()
        s.struct_size = UInt32(MemoryLayout<jwtk_stats>.size)
        XCTAssertEqual(jwtk_stats_get(v, &s), JWTK_OK)
        return s.cache_hits
    }

    func verify(_ v: OpaquePointer?, _ ctx: OpaquePointer?, _ token: String) -> Int32 {
        var token = token
        return token.withUTF8 { utf8 in
            utf8.withMemoryRebound(to: CChar.self) { jwtk_verify(v, ctx, $0.baseAddress, $0.count, 1_700_000_000, nil) }
        }
    }

    func testCacheHitsAndRejectionsUnderStaleKeysAreCounted() throws {
        var ks: OpaquePointer?, v: OpaquePointer?, ctx: OpaquePointer?
        XCTAssertEqual(jwtk_keystore_new(&ks), JWTK_OK)
        XCTAssertEqual(jwtk_ctx_new(&ctx), JWTK_OK)
        defer {
            jwtk_verifier_free(v)
            jwtk_keystore_free(ks)
            jwtk_ctx_free(ctx)
        }
        // Pull mode (never started: no thread, no fetch), with the verified-token cache.
        let config =
            #"{"issuers":["https://issuer.example"],"audiences":["api"],"cache":true,"jwks_url":"http://127.0.0.1:9/jwks"}"#
        XCTAssertEqual(config.withCString { jwtk_verifier_new($0, strlen($0), ks, &v) }, JWTK_OK)
        let keystore = try XCTUnwrap(Handle.object(ks, .keystore, as: KeystoreState.self))
        let keys = try JWKSet(json: Array(ConcurrencyTests.jwks.utf8))

        keystore.store.publish(keys, forIssuer: Self.issuer)
        XCTAssertEqual(verify(v, ctx, ConcurrencyTests.token), JWTK_OK)
        XCTAssertEqual(verify(v, ctx, ConcurrencyTests.token), JWTK_OK)
        XCTAssertEqual(staleServed(v), 0, "fresh keys are not counted")

        keystore.store.setStale(true, forIssuer: Self.issuer)
        let hitsBefore = cacheHits(v)
        for _ in 0..<5 { XCTAssertEqual(verify(v, ctx, ConcurrencyTests.token), JWTK_OK) }
        XCTAssertEqual(cacheHits(v) - hitsBefore, 5, "answered from the verified-token cache")
        XCTAssertEqual(staleServed(v), 5, "each cache hit under stale keys is counted")
        // One signature character changed (not the last, whose low bits are padding): a bad signature.
        var bytes = Array(ConcurrencyTests.token.utf8)
        bytes[bytes.count - 10] = bytes[bytes.count - 10] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let tampered = String(decoding: bytes, as: UTF8.self)
        XCTAssertEqual(verify(v, ctx, tampered), JWTK_BAD_SIGNATURE)
        XCTAssertEqual(staleServed(v), 6, "a rejection decided with stale keys is counted too")

        keystore.store.setStale(false, forIssuer: Self.issuer)  // a 304 or a new document renews them
        XCTAssertEqual(verify(v, ctx, ConcurrencyTests.token), JWTK_OK)
        XCTAssertEqual(staleServed(v), 6)
    }
}
