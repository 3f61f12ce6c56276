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
        let meta =
            try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appending(path: "meta.json"))) as! [String: Any]
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
    var opsPerSecond: Double  // median of the rounds
    var spread: Double  // (max - min) / median over the rounds: how noisy the cell was
    var allocsPerOp: Double?
}

/// A runner being measured. Rounds of all cells are interleaved by the caller, so a burst
/// of load from elsewhere on the machine costs each cell at most a round, which the median drops.
final class Timing {
    let run: Runner
    private(set) var batch = 1
    private(set) var rates: [Double] = []

    /// Warms up and picks a batch size of ~10 ms, so the per-batch cost (a Task hop for
    /// jwt-kit, a fork/join for batch mode) stays negligible.
    init(_ run: @escaping Runner) {
        self.run = run
        while true {
            let t0 = monotonicSeconds()
            checked(batch)
            if monotonicSeconds() - t0 >= 0.010 || batch >= 1 << 24 { break }
            batch *= 2
        }
    }

    private func checked(_ n: Int) {
        let ok = run(n)
        precondition(ok == n, "a valid token was rejected during the run")
    }

    func round(seconds: Double) {
        var ops = 0
        let start = monotonicSeconds()
        var elapsed = 0.0
        repeat {
            checked(batch)
            ops += batch
            elapsed = monotonicSeconds() - start
        } while elapsed < seconds
        rates.append(Double(ops) / elapsed)
    }

    /// Counted in an untimed pass of its own, so the counter's atomics never touch a timed round.
    func allocsPerOp() -> Double {
        let n = max(200, min(batch, 2000))
        cb_alloc_count_begin()
        checked(n)
        return Double(cb_alloc_count_end()) / Double(n)
    }

    func result(countAllocs: Bool) -> Measurement {
        let sorted = rates.sorted()
        let median = sorted[sorted.count / 2]
        return Measurement(
            opsPerSecond: median, spread: (sorted.last! - sorted.first!) / median,
            allocsPerOp: countAllocs ? allocsPerOp() : nil)
    }
}
