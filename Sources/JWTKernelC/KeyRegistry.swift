import JWTKernel

#if canImport(Glibc)
import Glibc
#endif

/// The keystore behind `jwtk_keystore`: keys per issuer, published without blocking verifiers.
///
/// This is the one type to switch when the core's lock-striped `KeyStore` (issue 8) lands: the
/// C functions use only `load(issuer:document:)`, `snapshot()`, `generation` and the counters.
///
/// A load parses the document into a `JWKSet` (OpenSSL keys built once) with no lock held, then
/// swaps the snapshot pointer under `mutex` (held for that swap only) and publishes the new
/// generation with a release store. Verifiers read `generation` with one acquire load per call
/// and take `mutex` only when it changed, to pick up the new snapshot.
// Safety: @unchecked because `current` and the load counters are only touched under `mutex`;
// `words` is atomic.
final class KeyRegistry: @unchecked Sendable {
    private let mutex = PThreadMutex()
    private var current = KeySnapshot.empty
    private var loads: UInt64 = 0, failures: UInt64 = 0, rejected: UInt64 = 0
    private var lastSuccess: Int64 = 0, lastAttempt: Int64 = 0
    private let words = AtomicWords(count: 1)

    /// The generation of the latest snapshot (acquire: its content is visible once this is).
    @inline(__always) var generation: UInt64 { words.loadAcquire(0) }

    func snapshot() -> KeySnapshot { mutex.withLock { current } }

    /// What a load did, for the caller's status and message.
    struct LoadOutcome {
        let status: Int32
        let message: String
    }

    /// Parses `document` and, if it holds at least one usable key, makes it `issuer`'s key set.
    func load(issuer: IssuerName?, document: UnsafeRawBufferPointer) -> LoadOutcome {
        let now = Self.wallClock()
        let keys: JWKSet
        do {
            keys = try JWKSet(json: document)
        } catch {
            mutex.withLock {
                failures += 1; lastAttempt = now
            }
            return LoadOutcome(
                status: error.code.number, message: "key set refused, old keys kept: \(error.description)")
        }
        guard !keys.keys.isEmpty else {
            mutex.withLock {
                failures += 1; lastAttempt = now
            }
            let status = keys.rejected.first?.code.number ?? KeyErrorCode.notAKeySet.number
            let why = keys.rejected.isEmpty ? "the key set holds no keys" : Self.describe(keys.rejected)
            return LoadOutcome(status: status, message: "no usable key, old keys kept: \(why)")
        }
        mutex.withLock {
            let next = current.replacing(issuer, with: keys)
            current = next
            loads += 1
            rejected += UInt64(keys.rejected.count)
            lastSuccess = now
            lastAttempt = now
            words.storeRelease(0, next.generation)
        }
        return LoadOutcome(status: 0, message: keys.rejected.isEmpty ? "" : "refused: " + Self.describe(keys.rejected))
    }

    struct Counters {
        var loads: UInt64, failures: UInt64, rejected: UInt64, keysLoaded: UInt64
        var lastSuccess: Int64, lastAttempt: Int64
    }

    func counters() -> Counters {
        mutex.withLock {
            Counters(
                loads: loads, failures: failures, rejected: rejected, keysLoaded: UInt64(current.keyCount),
                lastSuccess: lastSuccess, lastAttempt: lastAttempt)
        }
    }

    /// Reasons name the key by kid and the problem, never the key material (KeyError's promise).
    private static func describe(_ errors: [KeyError]) -> String {
        errors.map { "\($0.code.name): \($0.description)" }.joined(separator: "; ")
    }

    private static func wallClock() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec)
    }
}
