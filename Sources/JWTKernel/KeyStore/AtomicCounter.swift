import Synchronization

/// A counter the hot path may bump from any thread without a lock. The
/// atomic operations are inlined into this module, so ThreadSanitizer sees them.
public final class AtomicCounter: Sendable {
    private let value = Atomic<Int>(0)

    public init() {}

    @inline(__always)
    public func increment(by n: Int = 1) { value.wrappingAdd(n, ordering: .relaxed) }

    public var current: Int { value.load(ordering: .relaxed) }
}
