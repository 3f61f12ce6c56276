import Dispatch

#if canImport(Glibc)
import Glibc
#endif

extension JWTVerifier {
    /// Verifies `tokens[i]` into `results[i]` (nil: valid) using up to
    /// `threads` cores via `DispatchQueue.concurrentPerform`. Work is split into
    /// a few contiguous chunks per thread, so there is no per-token task and no
    /// allocation per token; results stay in input order. `now`: the time every token is judged at
    /// (Unix seconds), nil for this verifier's clock.
    public func verifyBatch(
        _ tokens: UnsafeBufferPointer<UnsafeRawBufferPointer>,
        results: UnsafeMutableBufferPointer<JWTError?>,
        threads: Int = JWTVerifier.coreCount, at now: Int64? = nil
    ) {
        precondition(results.count >= tokens.count, "results buffer is smaller than the token list")
        let n = tokens.count
        guard n > 0 else { return }
        let workers = max(1, min(threads, n))
        if workers == 1 {
            for i in 0..<n { results[i] = check(tokens[i], at: now) }
            return
        }
        // Four chunks per worker evens out tokens of different cost (RSA vs EC, cache hits).
        let chunks = min(n, workers * 4)
        // Safety: each chunk writes only its own disjoint range of `out`; the caller keeps both buffers alive for the call.
        nonisolated(unsafe) let out = results, input = tokens
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            let start = n * chunk / chunks, end = n * (chunk + 1) / chunks
            for i in start..<end { out[i] = check(input[i], at: now) }
        }
    }

    /// Convenience form for Swift callers: one result per token, in order.
    public func verifyBatch(_ tokens: [String], threads: Int = JWTVerifier.coreCount) -> [JWTError?] {
        // One contiguous copy of all tokens, so every view is valid for the whole call.
        var joined: [UInt8] = []
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(tokens.count)
        for token in tokens {
            let start = joined.count
            joined += token.utf8
            ranges.append(start..<joined.count)
        }
        var results = [JWTError?](repeating: nil, count: tokens.count)
        joined.withUnsafeBytes { all in
            let views = ranges.map { UnsafeRawBufferPointer(rebasing: all[$0]) }
            views.withUnsafeBufferPointer { tokenViews in
                results.withUnsafeMutableBufferPointer { verifyBatch(tokenViews, results: $0, threads: threads) }
            }
        }
        return results
    }

    /// Online processors, as the default batch width.
    public static var coreCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
}
