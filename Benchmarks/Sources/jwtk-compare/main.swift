// jwtk-compare: jwt-kernel against raw OpenSSL, jwt-kit and libjwt on the same tokens and
// keys, in one process. See Benchmarks/README.md.
import CBenchPeers
import Foundation

struct Options {
    var seconds = Double(ProcessInfo.processInfo.environment["BENCH_SECONDS"] ?? "") ?? 2.0
    var rounds = 5
    var smoke = false
    var out: String?
    var fixtures: String?
    var impls: Set<String>?
    var algs: Set<String>?
    var modes: Set<String>?
    /// The size sweep and the stage breakdown (full runs only).
    var extras = true
    /// The size sweep among the extras (off: the stage breakdown alone, for quick iteration).
    var sweep = true

    init(_ args: [String]) {
        var it = args.makeIterator()
        func value(_ flag: String) -> String {
            guard let v = it.next() else { fatalError("\(flag) needs a value") }
            return v
        }
        while let arg = it.next() {
            switch arg {
            case "--seconds": seconds = Double(value(arg))!
            case "--rounds": rounds = Int(value(arg))!
            case "--smoke": smoke = true; extras = false
            case "--no-extras": extras = false
            case "--no-sweep": sweep = false
            case "--out": out = value(arg)
            case "--fixtures": fixtures = value(arg)
            case "--impls": impls = Set(value(arg).split(separator: ",").map(String.init))
            case "--algs": algs = Set(value(arg).split(separator: ",").map(String.init))
            case "--modes": modes = Set(value(arg).split(separator: ",").map(String.init))
            case "-h", "--help":
                print(
                    """
                    usage: jwtk-compare [--seconds S] [--rounds N] [--smoke] [--out results.json]
                                        [--impls jwt-kernel,openssl-raw,openssl-floor,jwt-kit,libjwt] [--algs HS256,...]
                                        [--modes single,batch,cached,required,shared] [--no-sweep]
                                        [--fixtures DIR]
                      --seconds  time per cell, split over --rounds rounds (default 2, env BENCH_SECONDS)
                      --smoke    0.2 s per cell, no results.json unless --out; exits 1 if jwt-kernel
                                 allocates per verification, verifies wrongly, or is grossly slower
                                 than openssl-raw
                    """)
                exit(0)
            default: fatalError("unknown argument \(arg) (try --help)")
            }
        }
        if smoke && ProcessInfo.processInfo.environment["BENCH_SECONDS"] == nil && !args.contains("--seconds") {
            seconds = 0.2
        }
    }
}

struct Cell {
    let impl: String
    let alg: String
    let mode: String
    let threads: Int
    /// nil: the implementation does not support this cell (or its API is not there yet).
    let make: (_ token: String) throws -> Runner?
}

struct Row {
    let cell: Cell
    var result: Measurement?
    var note: String?
}

if CommandLine.arguments.dropFirst().first == "key-store-scale" {
    try KeyStoreScale.main(Array(CommandLine.arguments.dropFirst(2)))
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "jwe" {
    try JWECost.main(Array(CommandLine.arguments.dropFirst(2)))
    exit(0)
}
let options = Options(Array(CommandLine.arguments.dropFirst()))
let benchmarksDir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
let fixtures = try Fixtures(
    dir: options.fixtures.map { URL(fileURLWithPath: $0) }
        ?? benchmarksDir.appending(path: "Fixtures"))
let cores = ProcessInfo.processInfo.activeProcessorCount
let countAllocs = cb_alloc_counting_works() != 0
if !countAllocs { print("note: malloc interposition inactive; allocs_per_op will be null") }

let jwtKitKeys = try JWTKitPeer.keys(fixtures)
let kernel = try KernelPeer(fixtures)
let cLibrary = CLibrary(fixtures, kernel: kernel, root: benchmarksDir.deletingLastPathComponent())
var cells: [Cell] = []
for alg in algorithms {
    cells.append(
        Cell(impl: "openssl-raw", alg: alg, mode: "single", threads: 1) {
            try OpenSSLRaw.runner(fixtures, alg: alg, token: $0)
        })
    cells.append(
        Cell(impl: "openssl-raw", alg: alg, mode: "batch", threads: cores) {
            try OpenSSLRaw.runner(fixtures, alg: alg, token: $0).map { spread($0, threads: cores) }
        })
    cells.append(
        Cell(impl: "openssl-floor", alg: alg, mode: "single", threads: 1) {
            try OpenSSLFloor.runner(fixtures, alg: alg, token: $0)
        })
    cells.append(Cell(impl: "jwt-kernel", alg: alg, mode: "single", threads: 1) { try kernel.single($0, alg: alg) })
    cells.append(
        Cell(impl: "jwt-kernel", alg: alg, mode: "batch", threads: cores) {
            try kernel.batch($0, alg: alg, threads: cores)
        })
    cells.append(Cell(impl: "jwt-kernel", alg: alg, mode: "cached", threads: 1) { try kernel.cached($0, alg: alg) })
    if alg == "HS256" {  // claim requirements cost the same whatever signed the token: one row shows it
        cells.append(
            Cell(impl: "jwt-kernel", alg: alg, mode: "required", threads: 1) { try kernel.required($0, alg: alg) })
    }
    cells += cLibrary.cells(alg)
    // One verifier shared by every thread (no batch API): scaling, and contention beyond the core count.
    if alg == "HS256" || alg == "RS256" {
        for threads in [2, 4, 8] {
            cells.append(
                Cell(impl: "jwt-kernel", alg: alg, mode: "shared", threads: threads) {
                    try kernel.single($0, alg: alg).map { spread($0, threads: threads) }
                })
        }
    }
    cells.append(
        Cell(impl: "jwt-kit", alg: alg, mode: "single", threads: 1) {
            JWTKitPeer.runner(jwtKitKeys, fixtures, token: $0)
        })
    cells.append(
        Cell(impl: "libjwt", alg: alg, mode: "single", threads: 1) {
            try LibJWT.runner(fixtures, alg: alg, token: $0)
        })
}
cells = cells.filter {
    (options.impls?.contains($0.impl) ?? true) && (options.algs?.contains($0.alg) ?? true)
        && (options.modes?.contains($0.mode) ?? true)
}

/// Builds the cell's runner, checks that it accepts its token and rejects a tampered copy.
func prepare(_ cell: Cell) -> Result<Runner, BenchError>? {
    let token = fixtures.tokens[cell.alg]!
    do {
        guard let runner = try cell.make(token) else { return nil }
        guard runner(1) == 1 else { return .failure(BenchError("ERROR: rejects the valid token")) }
        if let forged = try? cell.make(tampered(token)), forged(1) != 0 {
            return .failure(BenchError("ERROR: accepts a tampered token"))
        }
        return .success(runner)
    } catch {
        return .failure(BenchError("ERROR: \(error)"))
    }
}

/// Times the cells with their rounds interleaved: round 1 of every cell, then round 2, ...
func measureAll(_ cells: [Cell], seconds: Double) -> [Row] {
    var rows: [Row] = []
    var timings: [(row: Int, timing: Timing)] = []
    for cell in cells {
        switch prepare(cell) {
        case nil: rows.append(Row(cell: cell, note: "n/a"))
        case .failure(let e): rows.append(Row(cell: cell, note: e.description))
        case .success(let runner):
            timings.append((rows.count, Timing(runner)))
            rows.append(Row(cell: cell))
        }
    }
    for r in 0..<options.rounds {
        for (_, t) in timings { t.round(seconds: seconds / Double(options.rounds)) }
        FileHandle.standardError.write(Data("round \(r + 1)/\(options.rounds) done\n".utf8))
    }
    for (i, t) in timings { rows[i].result = t.result(countAllocs: countAllocs) }
    return rows
}

func fmt(_ x: Double, _ decimals: Int) -> String { String(format: "%.\(decimals)f", x) }
func pad(_ s: String, _ w: Int, right: Bool = false) -> String {
    let fill = String(repeating: " ", count: max(0, w - s.count))
    return right ? fill + s : s + fill
}

let cpu =
    (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
    .split(separator: "\n").first { $0.hasPrefix("model name") }
    .map { $0.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces) } ?? "unknown"
print(
    "jwtk-compare: \(cells.count) cells, \(fmt(options.seconds, 2)) s each, median of \(options.rounds) interleaved rounds; "
        + "\(cores) cores, \(cpu)")

let rows = measureAll(cells, seconds: options.seconds)

func baseline(_ alg: String, in rows: [Row], impl: String = "openssl-raw") -> Double? {
    rows.first { $0.cell.impl == impl && $0.cell.alg == alg && $0.cell.mode == "single" }?.result?.opsPerSecond
}

print(
    pad("impl", 14) + pad("alg", 7) + pad("mode", 8) + pad("thr", 4, right: true)
        + pad("ops/s", 13, right: true) + pad("vs raw", 9, right: true) + pad("vs floor", 9, right: true)
        + pad("spread", 8, right: true)
        + pad("allocs/op", 11, right: true))
for row in rows {
    let c = row.cell
    var line = pad(c.impl, 14) + pad(c.alg, 7) + pad(c.mode, 8) + pad(String(c.threads), 4, right: true)
    if let r = row.result {
        let ratio = baseline(c.alg, in: rows).map { fmt(r.opsPerSecond / $0, 2) + "x" } ?? "-"
        let floorRatio =
            baseline(c.alg, in: rows, impl: "openssl-floor").map { fmt(r.opsPerSecond / $0, 2) + "x" } ?? "-"
        line +=
            pad(fmt(r.opsPerSecond, 0), 13, right: true) + pad(ratio, 9, right: true) + pad(floorRatio, 9, right: true)
            + pad(fmt(r.spread * 100, 0) + "%", 8, right: true)
            + pad(r.allocsPerOp.map { fmt($0, 1) } ?? "-", 11, right: true)
    } else {
        line += "  " + (row.note ?? "")
    }
    print(line)
}

// The zero-allocation promise, checked on every run and enforced by --smoke.
var allocationFailures: [String] = []
if countAllocs {
    let apart = cb_alloc_openssl_apart() != 0
    print(
        "allocation guard: jwt-kernel heap allocations per verification once warm, on the calling thread"
            + (apart ? "; OpenSSL's own counted apart" : "; OpenSSL's own cannot be told apart here, so HS256 only"))
    for cell in AllocationGuard.cells(cells, opensslApart: apart) {
        guard case .success(let runner)? = prepare(cell) else { continue }  // already reported in the table
        let v = AllocationGuard.check(cell, runner: runner)
        print(
            "  " + pad("\(cell.alg) \(cell.mode)", 14) + pad(fmt(v.own, 3), 7, right: true) + " jwt-kernel"
                + (apart ? pad(fmt(v.openssl, 1), 7, right: true) + " OpenSSL" : "")
                + (v.failed ? "   <- not zero" : ""))
        if v.failed {
            allocationFailures.append(
                "jwt-kernel \(cell.alg) \(cell.mode) makes \(fmt(v.own, 3)) heap allocations per "
                    + "verification of its own (zero promised)")
        }
    }
    allocationFailures += cLibrary.allocationGuard(cells, opensslApart: apart, prepare: prepare)
} else {
    allocationFailures.append(
        "allocations cannot be counted (malloc interposition inactive), so the zero-allocation promise is unchecked")
}

let pairedRounds = options.smoke ? 6 : 20
CLibrary.printRatios(cLibrary.pairedRatios(cells, seconds: options.seconds, pairs: pairedRounds), pairs: pairedRounds)

// The size sweep and the stage breakdown.
var sweep: [SizeSweep.Point] = []
var stages: [StageBreakdown.Row] = []
if options.extras && options.sweep {
    sweep = try SizeSweep.run(fixtures, seconds: options.seconds, rounds: options.rounds)
    print("size sweep (HS256, claims grow as a groups array): ns per token byte")
    print(
        pad("claims", 9, right: true) + pad("token", 9, right: true) + pad("jwt-kernel", 12, right: true)
            + pad("floor", 9, right: true) + pad("ratio", 8, right: true))
    for p in sweep {
        print(
            pad(String(p.claimsBytes), 9, right: true) + pad(String(p.tokenBytes), 9, right: true)
                + pad(fmt(p.kernelNsPerByte, 3), 12, right: true)
                + pad(p.floorNsPerByte.map { fmt($0, 3) } ?? "-", 9, right: true)
                + pad(p.floorNsPerByte.map { fmt($0 / p.kernelNsPerByte, 2) + "x" } ?? "-", 8, right: true))
    }
    if let at4 = sweep.first(where: { $0.claimsBytes == 4096 }), let at64 = sweep.last {
        print(
            "linearity: ns/byte at 64 KB is \(fmt(at64.kernelNsPerByte / at4.kernelNsPerByte, 2))x ns/byte at 4 KB (target <= 1.2x)"
        )
    }
}
if options.extras {
    stages = try StageBreakdown.run(
        kernel, fixtures, algs: ["HS256", "RS256"].filter { options.algs?.contains($0) ?? true },
        seconds: min(options.seconds, 1.0))
    print("stages (ns per token):")
    for row in stages {
        print("  " + pad(row.alg, 7) + pad(row.stage, 22) + pad(fmt(row.nanoseconds, 1), 12, right: true))
    }
}

// The key store at scale (issue 8): 1 issuer against 10,000, with refreshes beside.
var scale: KeyStoreScale.Report?
if options.extras {
    scale = try KeyStoreScale.run(
        seconds: options.seconds * 2, rounds: options.rounds,
        algs: ["HS256", "RS256"].filter { options.algs?.contains($0) ?? true })
    KeyStoreScale.print(scale!)
}

// results.json: measured cells only; unsupported and not-yet-available cells are left out.
let outPath =
    options.out
    ?? (options.smoke ? nil : benchmarksDir.deletingLastPathComponent().appending(path: "bench/results.json").path)
if let outPath {
    func jsonString(_ s: String) -> String {
        String(data: try! JSONSerialization.data(withJSONObject: s, options: .fragmentsAllowed), encoding: .utf8)!
    }
    let results = rows.compactMap { row -> String? in
        guard let r = row.result else { return nil }
        let c = row.cell
        return "    {\"impl\":\(jsonString(c.impl)),\"alg\":\(jsonString(c.alg)),\"mode\":\(jsonString(c.mode)),"
            + "\"threads\":\(c.threads),\"ops_per_s\":\(fmt(r.opsPerSecond, 1)),"
            + "\"allocs_per_op\":\(r.allocsPerOp.map { fmt($0, 2) } ?? "null")}"
    }
    let sweepJSON = sweep.map { p in
        "    {\"claims_bytes\":\(p.claimsBytes),\"token_bytes\":\(p.tokenBytes),\"kernel_ops_per_s\":\(fmt(p.kernel.opsPerSecond, 1)),"
            + "\"kernel_ns_per_byte\":\(fmt(p.kernelNsPerByte, 4)),\"floor_ns_per_byte\":\(p.floorNsPerByte.map { fmt($0, 4) } ?? "null")}"
    }
    let stagesJSON = stages.map { r in
        "    {\"alg\":\(jsonString(r.alg)),\"stage\":\(jsonString(r.stage)),\"ns\":\(fmt(r.nanoseconds, 2))}"
    }
    let scaleJSON: String = scale.map { ",\"key_store_scale\":" + KeyStoreScale.json($0) } ?? ""
    let json =
        "{\"machine\":{\"cores\":\(cores),\"cpu\":\(jsonString(cpu))},\"results\":[\n"
        + results.joined(separator: ",\n") + "\n],\"sweep\":[\n" + sweepJSON.joined(separator: ",\n")
        + "\n],\"stages\":[\n" + stagesJSON.joined(separator: ",\n") + "\n]" + scaleJSON + "}\n"
    try FileManager.default.createDirectory(
        at: URL(fileURLWithPath: outPath).deletingLastPathComponent(), withIntermediateDirectories: true)
    try json.write(toFile: outPath, atomically: true, encoding: .utf8)
    print("wrote \(outPath)")
}

if options.smoke { exit(smokeVerdict(rows, allocationFailures: allocationFailures)) }

/// Fails on a heap allocation by jwt-kernel in steady state, and otherwise only on gross
/// regressions: a wrong verdict, or jwt-kernel single below a generous fraction of openssl-raw single. A pair that looks bad is re-measured for
/// longer before it can fail, so a noisy neighbour on a 2-core runner is not a failure.
func smokeVerdict(_ rows: [Row], allocationFailures: [String]) -> Int32 {
    var failed = false
    for failure in allocationFailures {
        print("SMOKE FAIL: \(failure)")
        failed = true
    }
    for row in rows where row.cell.impl == "jwt-kernel" && row.note?.hasPrefix("ERROR") == true {
        print("SMOKE FAIL: jwt-kernel \(row.cell.alg) \(row.cell.mode): \(row.note!)")
        failed = true
    }
    for alg in algorithms {
        let floor = alg == "HS256" ? 0.25 : 0.5
        let pair = { (rows: [Row]) -> Double? in
            guard let raw = baseline(alg, in: rows),
                let k = rows.first(where: {
                    $0.cell.impl == "jwt-kernel" && $0.cell.alg == alg && $0.cell.mode == "single"
                })?
                .result?.opsPerSecond
            else { return nil }
            return k / raw
        }
        guard var ratio = pair(rows), ratio < floor else { continue }
        for attempt in 1...3 where ratio < floor {
            let again = measureAll(
                rows.map(\.cell).filter {
                    $0.alg == alg && $0.mode == "single"
                        && ($0.impl == "openssl-raw" || $0.impl == "jwt-kernel")
                }, seconds: 1.0)
            ratio = pair(again) ?? 0
            print("smoke: \(alg) jwt-kernel/openssl-raw = \(fmt(ratio, 2)) (re-measured, attempt \(attempt))")
        }
        if ratio < floor {
            print("SMOKE FAIL: \(alg) jwt-kernel single is \(fmt(ratio, 2))x openssl-raw (floor \(floor)x)")
            failed = true
        }
    }
    print(failed ? "smoke: FAILED" : "smoke: ok")
    return failed ? 1 : 0
}
