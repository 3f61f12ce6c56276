import CBenchPeers

/// The zero-allocation promise: once warm, a jwt-kernel verification on one thread makes
/// no heap allocation of its own. Counted on the calling thread only (other threads of the
/// process, a Dispatch worker or jwt-kit's pool, cannot add to it), with what OpenSSL asks
/// for counted apart: RS256, PS256 and ES256 allocate inside OpenSSL on every call (an
/// EVP_PKEY_CTX, ECDSA_SIG and BIGNUMs), which is OpenSSL's cost, not jwt-kernel's.
/// Without OpenSSL counted apart, only HS256 can be judged: its MAC runs on precomputed
/// digest states and OpenSSL allocates nothing there.
enum AllocationGuard {
    struct Verdict {
        let cell: Cell
        /// Per verification, on the calling thread.
        let total: Double
        let openssl: Double
        var own: Double { total - openssl }
        var failed: Bool { own > 0 }
    }

    /// The single-thread jwt-kernel cells (plain and cached) the guard can judge.
    static func cells(_ cells: [Cell], opensslApart: Bool) -> [Cell] {
        cells.filter { $0.impl == "jwt-kernel" && $0.threads == 1 && (opensslApart || $0.alg == "HS256") }
    }

    /// Warms `runner` up, then counts a pass; a pass with allocations is counted once more, so a
    /// one-time allocation (a first-use cache fill) is not taken for a per-verification one.
    static func check(_ cell: Cell, runner: Runner, verifications n: Int = 1000) -> Verdict {
        precondition(runner(n) == n, "a valid token was rejected during the allocation guard")
        var verdict = count(cell, runner, n)
        if verdict.failed { verdict = count(cell, runner, n) }
        return verdict
    }

    private static func count(_ cell: Cell, _ runner: Runner, _ n: Int) -> Verdict {
        cb_alloc_thread_begin()
        let accepted = runner(n)
        let counts = cb_alloc_thread_end()
        precondition(accepted == n, "a valid token was rejected during the allocation guard")
        return Verdict(cell: cell, total: Double(counts.total) / Double(n), openssl: Double(counts.openssl) / Double(n))
    }
}
