import CJWTK
import Foundation
import XCTest

@testable import JWTKernelC

/// Threads verifying through the C functions, each with its own ctx, while another thread reloads
/// the keystore and reads the counters: no wrong verdict, and (under scripts/sanitize.sh's
/// ThreadSanitizer run) no data race in the keystore swap, the routes rebuild or the counters.
final class ConcurrencyTests: XCTestCase {
    /// HS256, kid h1, secret "0123456789abcdef0123456789abcdef", iss https://issuer.example, sub user-1, exp 1700003600.
    static let token =
        "eyJhbGciOiAiSFMyNTYiLCAia2lkIjogImgxIn0.eyJpc3MiOiAiaHR0cHM6Ly9pc3N1ZXIuZXhhbXBsZSIsICJzdWIiOiAidXNlci0xIiwg"
        + "ImF1ZCI6ICJhcGkiLCAiZXhwIjogMTcwMDAwMzYwMH0.Qc_ZR3Fny_Kk-Ylhz5zdMl5KHix3UaUCKlQifHflDcs"
    static let jwks =
        #"{"keys":[{"kty":"oct","kid":"h1","alg":"HS256","k":"MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY"}]}"#

    func testVerifyWhileKeysReload() {
        var ks: OpaquePointer?
        var v: OpaquePointer?
        XCTAssertEqual(jwtk_keystore_new(&ks), JWTK_OK)
        XCTAssertEqual(Self.load(ks), JWTK_OK)
        let config = #"{"issuers":["https://issuer.example"],"audiences":["api"],"cache":true}"#
        XCTAssertEqual(config.withCString { jwtk_verifier_new($0, strlen($0), ks, &v) }, JWTK_OK)
        let workers = 4, rounds = 500
        let failures = Counter()
        let group = DispatchGroup()
        // Safety: the handles are thread-safe by contract (jwtk.h); each worker has its own ctx.
        nonisolated(unsafe) let verifier = v, keystore = ks
        for _ in 0..<workers {
            group.enter()
            Thread.detachNewThread {
                var ctx: OpaquePointer?
                _ = jwtk_ctx_new(&ctx)
                var claims = jwtk_claims()
                var token = Self.token
                token.withUTF8 { utf8 in
                    utf8.withMemoryRebound(to: CChar.self) { t in
                        for _ in 0..<rounds {
                            claims.struct_size = UInt32(MemoryLayout<jwtk_claims>.size)
                            if jwtk_verify(verifier, ctx, t.baseAddress, t.count, 1_700_000_000, &claims) != JWTK_OK
                                || claims.sub.len != 6
                            {
                                failures.add()
                            }
                        }
                    }
                }
                jwtk_ctx_free(ctx)
                group.leave()
            }
        }
        var stats = jwtk_stats()
        for _ in 0..<50 {
            XCTAssertEqual(Self.load(keystore), JWTK_OK)
            stats.struct_size = UInt32(MemoryLayout<jwtk_stats>.size)
            XCTAssertEqual(jwtk_stats_get(verifier, &stats), JWTK_OK)
        }
        group.wait()
        XCTAssertEqual(failures.value, 0)
        XCTAssertEqual(jwtk_stats_get(verifier, &stats), JWTK_OK)
        XCTAssertEqual(stats.allowed, UInt64(workers * rounds))
        jwtk_verifier_free(v)
        jwtk_keystore_free(ks)
    }

    private static func load(_ ks: OpaquePointer?) -> Int32 {
        jwks.withCString { jwtk_keystore_load_jwks(ks, nil, 0, $0, strlen($0)) }
    }
}

/// A failure count shared by the worker threads.
// Safety: @unchecked because `count` is only touched under `lock`.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
