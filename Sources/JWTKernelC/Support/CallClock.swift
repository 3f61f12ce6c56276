import JWTKernel

#if canImport(Glibc)
import Glibc
#endif

/// The clock of every verifier the C library builds: `now` of the current jwtk_verify call on this
/// thread, or the system clock when the call passed 0. The value travels in a pthread key (an
/// Int64 fits a pointer on the 64-bit platforms the library is built for), so one immutable
/// verifier serves calls with different `now`s on many threads without allocating.
struct CallClock: JWTClock {
    func now() -> Int64 {
        guard let raw = pthread_getspecific(Self.key) else { return SystemClock().now() }
        return Int64(Int(bitPattern: raw))
    }

    /// Runs `body` with `now` as this thread's time (0: the system clock).
    @inline(__always)
    static func with<R>(_ now: Int64, _ body: () -> R) -> R {
        guard now != 0 else { return body() }
        // Safety: the "pointer" is the time itself, never dereferenced; reset before returning.
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: Int(now)))
        defer { pthread_setspecific(key, nil) }
        return body()
    }

    /// Created on first use (not at load time), never deleted: no destructor, nothing to free.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()
}
