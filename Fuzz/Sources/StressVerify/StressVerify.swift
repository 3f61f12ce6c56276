import FuzzSupport
@_spi(Internals) import JWTKernel

// StressVerify: one shared JWTVerifier used from several threads at once, for ThreadSanitizer
// and AddressSanitizer (scripts/sanitize.sh builds it with each). What it exercises:
//   - the per-thread scratch (Support/ThreadScratch.swift): first use on each thread, growth
//     past the initial 16 KiB (a verifier with a 64 KiB token limit), the nested in-use path
//     (verification inside a result callback), and the pthread-key destructor (short-lived threads);
//   - shared VerificationKey / EVP_PKEY objects (RS256, ES256, Ed25519, HMAC) verified concurrently;
//   - concurrent key loading (JWKSet(json:)) while other threads verify;
//   - a VerifiedTokenCache shared by all threads (small, so entries are evicted and re-inserted),
//     and verifyBatch (DispatchQueue.concurrentPerform) called from several threads at once;
//   - key rotation under load: threads derive verifiers with a rotated key set (no "hs") from the
//     cached verifier (replacingKeys) while others verify, all sharing the one cache, so entries
//     cached under one key set are looked up under the other.
// Every result is compared with the one computed single-threaded first; any difference fails.
//
// Usage: StressVerify [iterations-per-thread] [threads]   (defaults 400, 4)
#if canImport(Glibc)
import Glibc
#endif

final class Shared: @unchecked Sendable {
    let verifier: JWTVerifier
    let bigVerifier: JWTVerifier
    let cachedVerifier: JWTVerifier
    let tokens: [[UInt8]]
    let bigTokens: [[UInt8]]
    let expected: [JWTErrorCode?]
    let expectedBig: [JWTErrorCode?]
    /// The key set after rotation ("hs" withdrawn) and each token's outcome under it.
    let rotatedKeys: JWKSet
    let expectedRotated: [JWTErrorCode?]
    let iterations: Int
    /// Keys in FuzzFixtures.publicJWKS, loaded once up front (threads reload it and compare).
    let publicKeyCount = (try? JWKSet(json: Array(FuzzFixtures.publicJWKS.utf8)))?.keys.count ?? -1
    var failures = 0  // written only under `lock`
    let lock: UnsafeMutablePointer<pthread_mutex_t> = .allocate(capacity: 1)

    init(iterations: Int) {
        self.iterations = iterations
        let keys = FuzzKeys.all
        verifier = JWTVerifier(keys: keys, clock: FixedClock(FuzzFixtures.now))
        bigVerifier = JWTVerifier(keys: keys, clock: FixedClock(FuzzFixtures.now), maxTokenSize: 64 * 1024)
        cachedVerifier = JWTVerifier(
            keys: keys, clock: FixedClock(FuzzFixtures.now),
            cache: VerifiedTokenCache(.init(capacity: 16, maxTokenSize: 16 * 1024, shards: 2)))
        var tokens = (FuzzFixtures.validTokens + [FuzzFixtures.expiredToken, FuzzFixtures.ambiguousToken]).map {
            Array($0.utf8)
        }
        // Tampered copies: a flipped signature character and a flipped claims character.
        for t in FuzzFixtures.validTokens.map({ Array($0.utf8) }) {
            var sig = t
            sig[sig.count - 2] = sig[sig.count - 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            tokens.append(sig)
            var claims = t
            let dot = claims.firstIndex(of: UInt8(ascii: "."))!
            claims[dot + 5] = claims[dot + 5] == UInt8(ascii: "x") ? UInt8(ascii: "y") : UInt8(ascii: "x")
            tokens.append(claims)
        }
        tokens.append(Array("not.a.token".utf8))
        // Large HS256 / ES256 / Ed25519 tokens: ~10 KiB fit the default scratch, ~45 KiB force it to grow.
        func big(_ padding: Int, _ key: FuzzSigner.Key, _ alg: String, _ kid: String) -> [UInt8] {
            let header = Array(#"{"alg":"\#(alg)","kid":"\#(kid)","typ":"JWT"}"#.utf8)
            let claims = Array(
                #"{"exp":\#(FuzzFixtures.now + 600),"sub":"big","pad":"\#(String(repeating: "x", count: padding))"}"#
                    .utf8)
            return FuzzSigner.token(header: header, payload: claims, key: key)
        }
        tokens += [
            big(10_000, .hs256, "HS256", "hs"), big(10_000, .es256, "ES256", "es"),
            big(10_000, .ed25519, "EdDSA", "ed"),
        ]
        bigTokens = [
            big(45_000, .hs256, "HS256", "hs"), big(45_000, .es256, "ES256", "es"),
            big(30_000, .ed25519, "Ed25519", "ed"),
        ]
        self.tokens = tokens
        let (v, bv, bt) = (verifier, bigVerifier, bigTokens)
        expected = tokens.map { t in t.withUnsafeBytes { v.check($0)?.code } }
        expectedBig = bt.map { t in t.withUnsafeBytes { bv.check($0)?.code } }
        let rotated = JWKSet(keys: keys.keys.filter { $0.kid != "hs" })
        rotatedKeys = rotated
        let rv = JWTVerifier(keys: rotated, clock: FixedClock(FuzzFixtures.now))
        expectedRotated = tokens.map { t in t.withUnsafeBytes { rv.check($0)?.code } }
        pthread_mutex_init(lock, nil)
    }

    func fail(_ message: String) {
        pthread_mutex_lock(lock)
        failures += 1
        if failures <= 10 { print("MISMATCH: \(message)") }
        pthread_mutex_unlock(lock)
    }
}

final class Job: @unchecked Sendable {
    let shared: Shared
    let index: Int
    init(_ shared: Shared, _ index: Int) { self.shared = shared; self.index = index }
}

/// One worker: every token, in a per-thread rotation, through a mix of the verifier's entry points.
func work(_ job: Job) {
    let s = job.shared
    var rng = UInt64(job.index + 1) &* 0x9E37_79B9_7F4A_7C15
    for iteration in 0..<s.iterations {
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17
        let i = Int(rng % UInt64(s.tokens.count))
        let token = s.tokens[i]
        let want = s.expected[i]
        switch iteration % 6 {
        case 0:
            let got = token.withUnsafeBytes { s.verifier.check($0)?.code }
            if got != want {
                s.fail(
                    "thread \(job.index) token \(i): check \(String(describing: got)) != \(String(describing: want))")
            }
        case 1:
            // Nested: verify another token from inside the callback (private scratch buffer).
            let j = (i + 1) % s.tokens.count
            let got: JWTErrorCode? = token.withUnsafeBytes { t in
                Result { () throws(JWTError) in
                    try s.verifier.verify(t) { outer in
                        let inner = s.tokens[j].withUnsafeBytes { s.verifier.check($0)?.code }
                        if inner != s.expected[j] { s.fail("nested inner token \(j): \(String(describing: inner))") }
                        // The outer view must be intact after the nested verification.
                        if outer.copy().claimsJSON.isEmpty { s.fail("outer claims lost after nesting") }
                    }
                }.failureCode
            }
            if got != want {
                s.fail(
                    "thread \(job.index) token \(i): nested outer \(String(describing: got)) != \(String(describing: want))"
                )
            }
        case 2:
            let text = String(decoding: token, as: UTF8.self)
            let got: JWTErrorCode?
            do { let jwt = try s.verifier.verify(text); _ = jwt.claims; got = nil } catch { got = error.code }
            if got != want {
                s.fail(
                    "thread \(job.index) token \(i): String verify \(String(describing: got)) != \(String(describing: want))"
                )
            }
        case 3:
            // The shared cache: a miss inserts, a hit re-checks; either way the same outcome.
            let got = token.withUnsafeBytes { s.cachedVerifier.check($0)?.code }
            if got != want {
                s.fail(
                    "thread \(job.index) token \(i): cached \(String(describing: got)) != \(String(describing: want))")
            }
            if iteration % 12 == 3 {
                // Rotation under load: a verifier for the new key set, same cache, used at once.
                let rotated = s.cachedVerifier.replacingKeys(s.rotatedKeys)
                let r = token.withUnsafeBytes { rotated.check($0)?.code }
                if r != s.expectedRotated[i] {
                    s.fail(
                        "thread \(job.index) token \(i): rotated \(String(describing: r)) != \(String(describing: s.expectedRotated[i]))"
                    )
                }
                let back = token.withUnsafeBytes { s.cachedVerifier.check($0)?.code }
                if back != want { s.fail("thread \(job.index) token \(i): after rotation \(String(describing: back))") }
            }
        case 4:
            if iteration % 24 == 4 {
                // A whole batch across Dispatch's worker threads, from several of ours at once.
                let got = s.verifier.verifyBatch(s.tokens.map { String(decoding: $0, as: UTF8.self) }, threads: 2)
                if got.map({ $0?.code }) != s.expected { s.fail("thread \(job.index): verifyBatch differs") }
            } else {
                let got = token.withUnsafeBytes { s.cachedVerifier.check($0)?.code }
                if got != want { s.fail("thread \(job.index) token \(i): cached \(String(describing: got))") }
            }
        default:
            let k = Int((rng >> 32) % UInt64(s.bigTokens.count))
            let got = s.bigTokens[k].withUnsafeBytes { s.bigVerifier.check($0)?.code }
            if got != s.expectedBig[k] { s.fail("thread \(job.index) big token \(k): \(String(describing: got))") }
        }
        // Now and then: load keys concurrently, and verify on a thread that then exits
        // (its scratch is released by the pthread-key destructor).
        if iteration % 97 == 0 {
            guard let set = try? JWKSet(json: Array(FuzzFixtures.publicJWKS.utf8)), set.keys.count == s.publicKeyCount
            else {
                s.fail("concurrent JWKS load failed"); continue
            }
        }
        if iteration % 61 == 0 {
            let t = spawn(Job(s, job.index + 100)) { job in
                let s = job.shared
                for (i, token) in s.tokens.enumerated()
                where token.withUnsafeBytes({ s.verifier.check($0)?.code }) != s.expected[i] {
                    s.fail("short-lived thread token \(i)")
                }
            }
            pthread_join(t, nil)
        }
    }
}

extension Result where Failure == JWTError {
    var failureCode: JWTErrorCode? { if case .failure(let e) = self { e.code } else { nil } }
}

final class ThreadStart: @unchecked Sendable {
    let job: Job
    let body: (Job) -> Void
    init(_ job: Job, _ body: @escaping (Job) -> Void) { self.job = job; self.body = body }
}

/// pthreads directly: ThreadSanitizer understands create/join (it does not see Dispatch on Linux).
func spawn(_ job: Job, _ body: @escaping (Job) -> Void) -> pthread_t {
    var tid = pthread_t()
    let start = Unmanaged.passRetained(ThreadStart(job, body)).toOpaque()
    let rc = pthread_create(
        &tid, nil,
        { raw in
            let start = Unmanaged<ThreadStart>.fromOpaque(raw!).takeRetainedValue()
            start.body(start.job)
            return nil
        }, start)
    precondition(rc == 0, "pthread_create failed: \(rc)")
    return tid
}

@main struct StressVerify {
    static func main() {
        let args = CommandLine.arguments
        let iterations = args.count > 1 ? Int(args[1]) ?? 400 : 400
        let threads = args.count > 2 ? Int(args[2]) ?? 4 : 4
        var start = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        let shared = Shared(iterations: iterations)
        let accepted = shared.expected.filter { $0 == nil }.count + shared.expectedBig.filter { $0 == nil }.count
        guard accepted == FuzzFixtures.validTokens.count + 3 + shared.bigTokens.count else {
            print("StressVerify: fixtures do not verify as expected (\(shared.expected), \(shared.expectedBig))")
            exit(1)
        }
        let tids = (0..<threads).map { spawn(Job(shared, $0), work) }
        for t in tids { pthread_join(t, nil) }
        var end = timespec()
        clock_gettime(CLOCK_MONOTONIC, &end)
        let seconds = Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
        print(
            "StressVerify: \(threads) threads x \(iterations) verifications (+ nested, short-lived threads, key loads)"
                + " in \((seconds * 10).rounded() / 10) s; \(shared.failures) mismatches")
        exit(shared.failures == 0 ? 0 : 1)
    }
}
