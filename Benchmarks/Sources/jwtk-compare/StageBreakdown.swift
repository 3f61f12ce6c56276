import Foundation
@_spi(Internals) import JWTKernel

/// Where one token's time goes, stage by stage (`PipelineStages`), beside the full
/// verification: the stacked bar in the README.
enum StageBreakdown {
    struct Row {
        let alg: String
        let stage: String
        let nanoseconds: Double
    }

    static func run(_ kernel: KernelPeer, _ f: Fixtures, algs: [String], seconds: Double) throws -> [Row] {
        var rows: [Row] = []
        for alg in algs {
            let verifier = kernel.verifier(for: alg)
            let token = Array(f.tokens[alg]!.utf8)
            let stages = try PipelineStages(verifier: verifier, token: token)
            for stage in PipelineStages.Stage.allCases {
                rows.append(
                    Row(alg: alg, stage: stage.rawValue, nanoseconds: time(seconds) { n in stages.run(stage, n) }))
            }
            let full = time(seconds) { n in
                token.withUnsafeBytes { raw in
                    (0..<n).reduce(0) { sum, _ in sum + (verifier.check(raw) == nil ? 1 : 0) }
                }
            }
            rows.append(Row(alg: alg, stage: "full verification", nanoseconds: full))
        }
        return rows
    }

    /// Median ns per call over 5 rounds of a ~10 ms batch size.
    private static func time(_ seconds: Double, _ body: (Int) -> Int) -> Double {
        var batch = 1
        while true {
            let t0 = monotonicSeconds()
            blackHole(body(batch))
            if monotonicSeconds() - t0 >= 0.005 || batch >= 1 << 24 { break }
            batch *= 2
        }
        var samples: [Double] = []
        for _ in 0..<5 {
            var ops = 0
            let start = monotonicSeconds()
            repeat {
                blackHole(body(batch))
                ops += batch
            } while monotonicSeconds() - start < seconds / 5
            samples.append((monotonicSeconds() - start) / Double(ops) * 1e9)
        }
        return samples.sorted()[2]
    }
}

@inline(never)
func blackHole(_ x: Int) { if x == Int.min { print("") } }
