import Synchronization

/// A context's row in every verifier's verdict counters (`VerdictCounters`).
///
/// The first `exclusiveRows` rows are each lent to at most one live context at a time. A context is used by
/// one thread at a time (jwtk.h), so it adds to its own row with a plain load and store: no other thread
/// writes that row, and readers (`jwtk_stats`) load each word atomically, so a sum never tears and no count
/// is lost. An atomic read-modify-write would cost some 5 ns of a cache hit's 50. A row goes back to the pool
/// when its context is freed, and the release and acquire of that hand-over order the old context's last
/// writes before the next one's first. Contexts made while every exclusive row is lent out, and the batch path (several threads
/// at once), add to the shared rows behind them with atomic adds.
struct CounterStripe {
    /// The row's index in every verifier's counters.
    let row: Int
    let exclusive: Bool

    static let exclusiveRows = 32
    static let sharedRows = 8
    static var rows: Int { exclusiveRows + sharedRows }

    /// The batch path's row: shared.
    static let batch = CounterStripe(row: exclusiveRows, exclusive: false)

    /// An exclusive row if one is free, else a shared one (round robin). Lock-free, so a child process forked
    /// while another thread was here is not left waiting.
    static func lend() -> CounterStripe {
        var bits = free.load(ordering: .acquiring)
        while bits != 0 {
            let row = bits.trailingZeroBitCount
            let taken = free.compareExchange(
                expected: bits, desired: bits & ~(1 << row), successOrdering: .acquiring, failureOrdering: .acquiring)
            if taken.exchanged { return CounterStripe(row: row, exclusive: true) }
            bits = taken.original
        }
        let shared = Int(nextShared.wrappingAdd(1, ordering: .relaxed).oldValue % UInt64(sharedRows))
        return CounterStripe(row: exclusiveRows + shared, exclusive: false)
    }

    /// Gives an exclusive row back (its context is being freed); a shared row needs nothing. Releasing, so the
    /// next context lent the row (acquiring) sees this one's last counts.
    func giveBack() {
        guard exclusive else { return }
        Self.free.bitwiseOr(1 << UInt64(row), ordering: .releasing)
    }

    /// Bit i set: exclusive row i is free.
    private static let free = Atomic<UInt64>(exclusiveRows == 64 ? ~0 : (1 << UInt64(exclusiveRows)) - 1)
    private static let nextShared = Atomic<UInt64>(0)
}
