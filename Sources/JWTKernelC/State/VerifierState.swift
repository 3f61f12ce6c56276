import CJWTK
@_spi(Internals) import JWTKernel

/// The object behind `jwtk_verifier`: settings frozen at creation, a keystore reference, the
/// routes for the keystore's current generation, and the verdict counters.
// Safety: @unchecked because `latest` is only touched under `mutex`; everything else is immutable
// or atomic (`counters`).
final class VerifierState: @unchecked Sendable {
    let serial: UInt64
    let keystore: KeystoreState
    let settings: VerifierSettings
    let cache: VerifiedTokenCache?
    /// The "claims" requirements on their own, for jwtk_check_claims (a host's authorization step after
    /// the verification, against a token another verifier verified).
    let requirements: CompiledRequirements
    let counters = VerdictCounters()
    private let mutex = PThreadLock()
    /// `keystore.store` unretained, for the generation check of every jwtk_verify: reading it through
    /// `keystore` retained and released the store around the (cross-module) getter. Kept alive by `keystore`.
    private let storeRef: Unmanaged<KeyStore>
    private var latest: Routes

    init(settings: VerifierSettings, keystore: KeystoreState) {
        self.serial = Self.serials.withLock { () -> UInt64 in
            Self.nextSerial += 1; return Self.nextSerial
        }
        self.keystore = keystore
        self.storeRef = .passUnretained(keystore.store)
        self.settings = settings
        self.cache = settings.cache.map { VerifiedTokenCache($0) }
        self.requirements = CompiledRequirements(settings.policy.claimRequirements)
        self.latest = Routes(owner: serial, store: keystore.store, settings: settings, cache: cache)
    }

    /// The routes for the keystore's current keys: `cached` itself when still current (the fork check's
    /// relaxed load and the store generation's acquire load), otherwise rebuilt once under `mutex` and
    /// shared by every caller.
    @inline(__always)
    func routes(reusing cached: Routes?) -> Routes {
        keystore.checkFork()
        let generation = keystore.store.generation
        if let cached, cached.owner == serial, cached.generation == generation { return cached }
        return current(generation)
    }

    /// `routes(reusing:)` for jwtk_verify, kept in `context` (which holds them from one call to the next):
    /// returned unretained, so the common case, the context's routes still current, takes no reference.
    @inline(__always)
    func routes(in context: ContextState) -> Unmanaged<Routes> {
        keystore.checkFork()
        let generation = storeRef._withUnsafeGuaranteedRef { $0.generation }
        if let cached = context.routes, cached.owner == serial, cached.generation == generation {
            return .passUnretained(cached)
        }
        let fresh = current(generation)
        context.routes = fresh
        return .passUnretained(fresh)
    }

    /// The routes of `generation`, built by the first caller to see it.
    @inline(never)
    private func current(_ generation: UInt64) -> Routes {
        mutex.withLock {
            if latest.generation != generation {
                latest = Routes(owner: serial, store: keystore.store, settings: settings, cache: cache)
            }
            return latest
        }
    }

    @inline(__always)
    func count(_ status: Int32, stripe: CounterStripe = .batch) { counters.count(status, stripe: stripe) }

    // Safety: `nextSerial` is only touched under `serials`.
    nonisolated(unsafe) private static var nextSerial: UInt64 = 0
    private static let serials = PThreadLock()
}
