import CBenchPeers
import Foundation

/// jwtk-c: jwt-kernel through its C library, `jwtk_verify` called from a loop written in C
/// (jwtk_c_driver.c) on the shipped `libjwtk.so.0` (make install), loaded with dlopen. Set up
/// like the Swift `jwt-kernel` row: the IdP's JWKS for the asymmetric algorithms, the service's
/// secret (as an `oct` JWK) for HS256, the fixtures' issuer and audience, `now` from meta.json.
/// The library comes from `JWTK_LIB`, else `.build-clib/bench/lib/libjwtk.so.0`
/// (Benchmarks/run.sh installs it there).
@MainActor
struct CLibrary {
    let fixtures: Fixtures
    let kernel: KernelPeer
    /// nil when the library is loaded; else why not.
    let loadError: String?
    let path: String

    init(_ f: Fixtures, kernel: KernelPeer, root: URL) {
        fixtures = f
        self.kernel = kernel
        path =
            ProcessInfo.processInfo.environment["JWTK_LIB"]
            ?? root.appending(path: ".build-clib/bench/lib/libjwtk.so.0").path
        var err = [CChar](repeating: 0, count: 512)
        loadError = cb_jwtkc_load(path, &err, err.count) == 1 ? nil : String(cString: err)
    }

    /// The cells next to the Swift API's for `alg`: plain and with the verified-token cache.
    func cells(_ alg: String) -> [Cell] {
        [
            Cell(impl: "jwtk-c", alg: alg, mode: "single", threads: 1) { try self.runner($0, alg: alg, cache: false) },
            Cell(impl: "jwtk-c", alg: alg, mode: "cached", threads: 1) { try self.runner($0, alg: alg, cache: true) },
        ]
    }

    /// `claims`: each call fills a `jwtk_claims` (as a gateway that exports claims); false: `out` is NULL.
    func runner(_ token: String, alg: String, cache: Bool, claims: Bool = true) throws -> Runner? {
        if let loadError { throw BenchError("libjwtk not loaded: \(loadError) (Benchmarks/run.sh builds it)") }
        let f = fixtures
        let jwks = alg == "HS256" ? try Self.secretJWKS(f.bytes("hs256.key")) : try f.text("jwks.json")
        let config = try String(
            data: JSONSerialization.data(
                withJSONObject: ["issuers": [f.iss], "audiences": [f.aud], "cache": cache] as [String: Any]),
            encoding: .utf8)!
        var err = [CChar](repeating: 0, count: 256)
        let handle = CHandle(
            cb_jwtkc_new(
                jwks, jwks.utf8.count, config, config.utf8.count, token, token.utf8.count, f.now, &err, err.count),
            release: cb_jwtkc_free)
        guard let handle else { throw BenchError("jwtk-c setup failed: \(String(cString: err))") }
        // One jwtk_ctx per handle: the runner stays on one thread (single and cached cells only).
        if !claims { return { n in cb_jwtkc_verdict_n(handle.pointer, n) } }
        return { n in cb_jwtkc_verify_n(handle.pointer, n) }
    }

    /// The HS256 secret as the JWKS a service would hand jwtk_keystore_load_jwks.
    static func secretJWKS(_ secret: [UInt8]) -> String {
        let k = Data(secret).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return #"{"keys":[{"kty":"oct","kid":"hs256-1","alg":"HS256","k":"\#(k)"}]}"#
    }

    /// The zero-allocation promise for jwtk_verify, judged like the Swift API's (AllocationGuard:
    /// the calling thread, warm, OpenSSL's own apart). Returns the failures; a cell that cannot
    /// even be set up fails too, so CI cannot pass without having counted.
    func allocationGuard(
        _ cells: [Cell], opensslApart apart: Bool, prepare: (Cell) -> Result<Runner, BenchError>?
    ) -> [String] {
        var failures: [String] = []
        for cell in cells where cell.impl == "jwtk-c" && (apart || cell.alg == "HS256") {
            guard case .success(let runner)? = prepare(cell) else {
                failures.append("jwtk-c \(cell.alg) \(cell.mode) could not be set up, so its allocations are unchecked")
                continue
            }
            let v = AllocationGuard.check(cell, runner: runner)
            print(
                "  " + pad("\(cell.alg) \(cell.mode)", 14) + pad(fmt(v.own, 3), 7, right: true) + " jwtk-c (C API)"
                    + (apart ? pad(fmt(v.openssl, 1), 7, right: true) + " OpenSSL" : "")
                    + (v.failed ? "   <- not zero" : ""))
            if v.failed {
                failures.append(
                    "jwtk_verify (\(cell.alg) \(cell.mode)) makes \(fmt(v.own, 3)) heap allocations per call "
                        + "of its own (zero promised)")
            }
        }
        return failures
    }

    struct Ratio {
        let alg: String
        let mode: String
        let swift: Double
        let c: Double
        /// C/Swift throughput per pair of back-to-back rounds, sorted.
        let pairs: [Double]
        var median: Double { pairs[pairs.count / 2] }
        var p25: Double { pairs[pairs.count / 4] }
        var p75: Double { pairs[pairs.count * 3 / 4] }
    }

    /// C/Swift throughput ratio from paired rounds: the Swift API cell and its jwtk-c twin run
    /// back to back (alternating which goes first), `pairs` times, and each pair gives one ratio.
    /// The twin fills a `jwtk_claims` per call, work the Swift cell (an empty body) does not do, so each
    /// cell is also paired with the verdict alone (`out` NULL), mode "<mode>, no out".
    /// Rates here are per second of the thread's own CPU time (CLOCK_THREAD_CPUTIME_ID), not wall
    /// time: on a shared machine a round that loses the CPU to another process would otherwise
    /// count against whichever side it happened to, while both sides are single-threaded and
    /// never wait. `seconds` of wall time per algorithm and mode.
    func pairedRatios(_ cells: [Cell], seconds: Double, pairs: Int = 20) -> [Ratio] {
        var ratios: [Ratio] = []
        for cell in cells where cell.impl == "jwtk-c" {
            for claims in [true, false] {
                if let r = pairedRatio(cell, claims: claims, seconds: seconds, pairs: pairs) { ratios.append(r) }
            }
        }
        return ratios
    }

    private func pairedRatio(_ cell: Cell, claims: Bool, seconds: Double, pairs: Int) -> Ratio? {
        let token = fixtures.tokens[cell.alg]!
        let cached = cell.mode == "cached"
        guard
            let swiftRunner =
                (try? cached ? kernel.cached(token, alg: cell.alg) : kernel.single(token, alg: cell.alg))
                    ?? nil,
            let cRunner = (try? runner(token, alg: cell.alg, cache: cached, claims: claims)) ?? nil
        else { return nil }
        let s = CPUTiming(swiftRunner)
        let c = CPUTiming(cRunner)
        let slot = seconds / Double(2 * pairs)
        for i in 0..<pairs {
            if i % 2 == 0 {
                s.round(seconds: slot)
                c.round(seconds: slot)
            } else {
                c.round(seconds: slot)
                s.round(seconds: slot)
            }
        }
        let perPair = zip(c.rates, s.rates).map { $0 / $1 }.sorted()
        return Ratio(
            alg: cell.alg, mode: claims ? cell.mode : cell.mode + ", no out", swift: s.rates.sorted()[pairs / 2],
            c: c.rates.sorted()[pairs / 2], pairs: perPair)
    }

    /// Operations per second of the calling thread's CPU time, in rounds of whole ~10 ms batches.
    final class CPUTiming {
        let run: Runner
        private(set) var batch = 1
        private(set) var rates: [Double] = []

        init(_ run: @escaping Runner) {
            self.run = run
            while true {  // warm-up and batch size, as Timing does
                let t0 = monotonicSeconds()
                precondition(run(batch) == batch, "a valid token was rejected")
                if monotonicSeconds() - t0 >= 0.010 || batch >= 1 << 24 { break }
                batch *= 2
            }
        }

        func round(seconds: Double) {
            var ops = 0
            let wall = monotonicSeconds()
            let cpu = Self.threadCPUSeconds()
            repeat {
                precondition(run(batch) == batch, "a valid token was rejected")
                ops += batch
            } while monotonicSeconds() - wall < seconds
            rates.append(Double(ops) / (Self.threadCPUSeconds() - cpu))
        }

        static func threadCPUSeconds() -> Double {
            var ts = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
            return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
        }
    }

    static func printRatios(_ ratios: [Ratio], pairs: Int) {
        guard !ratios.isEmpty else { return }
        print(
            "C API vs Swift API (jwtk-c / jwt-kernel per thread CPU second, \(pairs) paired rounds; "
                + "targets: HS256 single >= 0.95x, cached >= 0.8x; \"no out\": jwtk_verify with out NULL)")
        print(
            "  " + pad("alg", 7) + pad("mode", 16) + pad("swift ops/cpu-s", 17, right: true)
                + pad("c ops/cpu-s", 13, right: true)
                + pad("ratio", 8, right: true) + pad("p25-p75", 14, right: true) + pad("min-max", 14, right: true))
        for r in ratios {
            print(
                "  " + pad(r.alg, 7) + pad(r.mode, 16) + pad(fmt(r.swift, 0), 17, right: true)
                    + pad(fmt(r.c, 0), 13, right: true) + pad(fmt(r.median, 3) + "x", 8, right: true)
                    + pad(fmt(r.p25, 3) + "-" + fmt(r.p75, 3), 14, right: true)
                    + pad(fmt(r.pairs.first!, 2) + "-" + fmt(r.pairs.last!, 2), 14, right: true))
        }
    }
}
