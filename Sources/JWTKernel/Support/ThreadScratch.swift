#if canImport(Glibc)
import Glibc
#endif

/// Per-thread scratch memory for decoded token segments, so steady-state
/// verification allocates nothing. Grows on demand, freed when the thread ends.
///
/// This is one of the two places with manual memory management (the other is
/// OpenSSL key ownership). A buffer is lent to one verification at a time;
/// a nested verification on the same thread (from inside a result callback)
/// gets a private buffer instead of clobbering the outer one.
final class ThreadScratch {
    private(set) var buffer: UnsafeMutableRawPointer
    private(set) var capacity: Int
    private var inUse = false
    /// Prepared OpenSSL contexts for this thread.
    let contexts = PKeyContextCache()
    /// The last header this thread parsed (`HeaderMemo`).
    let headerMemo = HeaderMemo()

    private init(capacity: Int) {
        self.capacity = capacity
        self.buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// Lends at least `count` bytes and this thread's scratch (its OpenSSL contexts, its header memo) to `body`.
    ///
    /// The thread's scratch is reached as a guaranteed reference (the thread-specific
    /// slot owns it until the thread ends), so lending it retains and releases nothing:
    /// before, the scratch and its contexts were each retained and released per token.
    @inline(__always)
    static func withBuffer<R, E: Error>(
        count: Int, _ body: (UnsafeMutableRawPointer, ThreadScratch) throws(E) -> R
    ) throws(E) -> R {
        // Result carries the typed error through `_withUnsafeGuaranteedRef`, which only rethrows untyped.
        try current._withUnsafeGuaranteedRef { scratch in
            Result { () throws(E) -> R in try scratch.lend(count: count, body) }
        }.get()
    }

    @inline(__always)
    private func lend<R, E: Error>(
        count: Int, _ body: (UnsafeMutableRawPointer, ThreadScratch) throws(E) -> R
    ) throws(E) -> R {
        if inUse {
            let private_ = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
            defer { private_.deallocate() }
            return try body(private_, self)
        }
        if capacity < count {
            buffer.deallocate()
            capacity = max(count, capacity * 2)
            buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        }
        inUse = true
        defer { inUse = false }
        return try body(buffer, self)
    }

    /// This thread's scratch, unretained: the thread-specific slot holds the reference.
    @inline(__always)
    private static var current: Unmanaged<ThreadScratch> {
        if let raw = pthread_getspecific(key) { return Unmanaged<ThreadScratch>.fromOpaque(raw) }
        let scratch = Unmanaged.passRetained(ThreadScratch(capacity: 16 * 1024))
        pthread_setspecific(key, scratch.toOpaque())
        return scratch
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { raw in
            Unmanaged<ThreadScratch>.fromOpaque(raw!).release()
        }
        return key
    }()
}
