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

    private init(capacity: Int) {
        self.capacity = capacity
        self.buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// Lends at least `count` bytes and this thread's OpenSSL contexts to `body`.
    @inline(__always)
    static func withBuffer<R, E: Error>(
        count: Int, _ body: (UnsafeMutableRawPointer, PKeyContextCache) throws(E) -> R
    ) throws(E) -> R {
        let scratch = current
        if scratch.inUse {
            let private_ = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
            defer { private_.deallocate() }
            return try body(private_, scratch.contexts)
        }
        if scratch.capacity < count {
            scratch.buffer.deallocate()
            scratch.capacity = max(count, scratch.capacity * 2)
            scratch.buffer = UnsafeMutableRawPointer.allocate(byteCount: scratch.capacity, alignment: 16)
        }
        scratch.inUse = true
        defer { scratch.inUse = false }
        return try body(scratch.buffer, scratch.contexts)
    }

    private static var current: ThreadScratch {
        if let raw = pthread_getspecific(key) {
            return Unmanaged<ThreadScratch>.fromOpaque(raw).takeUnretainedValue()
        }
        let scratch = ThreadScratch(capacity: 16 * 1024)
        pthread_setspecific(key, Unmanaged.passRetained(scratch).toOpaque())
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
