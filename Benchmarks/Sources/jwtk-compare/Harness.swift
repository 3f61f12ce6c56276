import CBenchPeers
import Dispatch
import Foundation

/// Performs `n` verifications of the cell's token and returns how many were accepted.
/// Every implementation loops inside its own runner, so the harness costs one call per batch.
typealias Runner = @Sendable (_ n: Int) -> Int

/// The fixture set: one token per algorithm and the keys in every form the peers need.
struct Fixtures: Sendable {
    let dir: URL
    let iss: String
    let aud: String
    let now: Int64
    let tokens: [String: String]  // alg -> compact JWS

    init(dir: URL) throws {
        self.dir = dir
        let meta = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appending(path: "meta.json"))) as! [String: Any]
        iss = meta["iss"] as! String
        aud = meta["aud"] as! String
        now = (meta["now"] as! NSNumber).int64Value
        var tokens: [String: String] = [:]
        for alg in algorithms {
            tokens[alg] = try String(contentsOf: dir.appending(path: "\(alg.lowercased()).jwt"), encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        self.tokens = tokens
    }

    func bytes(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: dir.appending(path: name))) }
    func text(_ name: String) throws -> String { try String(contentsOf: dir.appending(path: name), encoding: .utf8) }

    /// PEM public key, or the raw secret for HS256.
    func keyMaterial(_ alg: String) throws -> [UInt8] {
        alg == "HS256" ? try bytes("hs256.key") : try bytes("\(alg.lowercased()).pub.pem")
    }
}

let algorithms = ["HS256", "RS256", "PS256", "ES256", "EdDSA"]

/// The same token with one signature character changed: every runner must reject it.
func tampered(_ token: String) -> String {
    var chars = Array(token)
    let i = chars.index(chars.endIndex, offsetBy: -3)
    chars[i] = chars[i] == "A" ? "B" : "A"
    return String(chars)
}

func monotonicSeconds() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

/// Splits `n` operations over `threads` threads; `body` gets each thread's share.
func parallel(threads: Int, n: Int, _ body: @Sendable (Int) -> Int) -> Int {
    let accepted = UnsafeMutableBufferPointer<Int>.allocate(capacity: threads)
    defer { accepted.deallocate() }
    nonisolated(unsafe) let out = accepted
    DispatchQueue.concurrentPerform(iterations: threads) { i in
        out[i] = body(n / threads + (i < n % threads ? 1 : 0))
    }
    return accepted.reduce(0, +)
}

/// The single-thread runner on `threads` threads at once (runners are thread-safe).
func spread(_ single: @escaping Runner, threads: Int) -> Runner {
    { n in parallel(threads: threads, n: n, single) }
}

/// Runs an async body to completion from synchronous code (the harness is synchronous
/// so that C and Swift runners are timed by the same loop).
func blockingAwait<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try box.result!.get()
}

/// Written by the task before it signals, read by the waiter after: the semaphore orders them.
private final class ResultBox<T>: @unchecked Sendable { var result: Result<T, any Error>? }

struct Measurement {
    var opsPerSecond: Double
    var allocsPerOp: Double?
}

/// ops/s = median over `rounds` rounds of `seconds / rounds` each, after a warm-up that
/// also picks a batch size of ~5 ms. Allocations are counted in a separate untimed pass
/// so the counter's atomics never touch the timed loop.
func measure(_ run: Runner, seconds: Double, rounds: Int, countAllocs: Bool) -> Measurement {
    func checked(_ n: Int) {
        let ok = run(n)
        precondition(ok == n, "a valid token was rejected during the run")
    }
    var batch = 1
    while true {
        let t0 = monotonicSeconds()
        checked(batch)
        if monotonicSeconds() - t0 >= 0.005 || batch >= 1 << 24 { break }
        batch *= 2
    }
    let roundTime = seconds / Double(rounds)
    var rates: [Double] = []
    for _ in 0..<rounds {
        var ops = 0
        let start = monotonicSeconds()
        var elapsed = 0.0
        repeat {
            checked(batch)
            ops += batch
            elapsed = monotonicSeconds() - start
        } while elapsed < roundTime
        rates.append(Double(ops) / elapsed)
    }
    rates.sort()

    var allocs: Double?
    if countAllocs {
        let n = max(200, min(batch, 2000))
        cb_alloc_count_begin()
        checked(n)
        allocs = Double(cb_alloc_count_end()) / Double(n)
    }
    return Measurement(opsPerSecond: rates[rates.count / 2], allocsPerOp: allocs)
}
