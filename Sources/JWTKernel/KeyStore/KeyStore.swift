internal import CXXHash
import Synchronization

/// The keys of many issuers, indexed by issuer (XXH3 of its name picks one of
/// a fixed power-of-two number of stripes, then a slot in that stripe's
/// open-addressing index) and then by `kid` (each key set's own XXH3 kid index).
///
/// No I/O and no threads: whoever refreshes (a `KeyRefresher` in
/// JWTKernelRemote, the CLI, a test) parses the new key set off the hot path
/// and publishes it here with one reference swap of that issuer's stripe.
/// Lookups allocate nothing, take no lock and write no shared memory (each
/// thread keeps the stripe snapshots it read, checked against the stripe's
/// generation, see `KeyStoreReaderCache`); keys a refresh removed stop
/// verifying at the next lookup; a refresh of one issuer never blocks lookups
/// of any other. docs/ARCHITECTURE.md (Key store) has the memory-ordering argument.
// Safety: @unchecked only for `cellRefs`, an immutable copy of `stripes` made in init and freed in deinit.
public final class KeyStore: @unchecked Sendable {
    /// Enough that a publication, which copies its stripe's entries, stays small
    /// for stores of up to about 10,000 issuers (40 per stripe); readers keep
    /// 16 bytes per stripe per store they read.
    public static let defaultStripeCount = 256

    private let stripes: [SnapshotCell<KeyStoreStripe>]
    /// `stripes` unretained, so a lookup reaches its cell without a retain (a
    /// write to the cell's shared reference count).
    private let cellRefs: UnsafeMutablePointer<Unmanaged<SnapshotCell<KeyStoreStripe>>>
    /// One per stripe: serializes publications that rebuild that stripe.
    private let writers: [Locked<Void>]
    private let stripeMask: Int
    /// Bumped (release) after every publication, of any issuer.
    private let publications = Atomic<UInt64>(0)
    /// Names this store in the readers' per-thread caches; never reused.
    let id: UInt64

    private static let nextID = Atomic<UInt64>(1)

    /// `stripes` is rounded up to a power of two.
    public init(stripes: Int = KeyStore.defaultStripeCount) {
        var count = 1
        while count < min(max(1, stripes), 1 << 16) { count <<= 1 }
        self.stripes = (0..<count).map { _ in SnapshotCell(KeyStoreStripe.empty) }
        self.cellRefs = .allocate(capacity: count)
        for (i, cell) in self.stripes.enumerated() { cellRefs[i] = Unmanaged.passUnretained(cell) }
        self.writers = (0..<count).map { _ in Locked(()) }
        self.stripeMask = count - 1
        self.id = Self.nextID.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    deinit { cellRefs.deallocate() }

    public var stripeCount: Int { stripes.count }

    /// Changes after every publication of any issuer (acquire: what was published before it is
    /// visible). A reader that caches what it built from the store (the C library's per-verifier
    /// routes) checks this one word per call and rebuilds only when it moved.
    @inline(__always)
    public var generation: UInt64 { publications.load(ordering: .acquiring) }

    @inline(__always)
    private func stripeIndex(_ hash: UInt64) -> Int { Int(truncatingIfNeeded: hash) & stripeMask }

    // MARK: Writers (off the hot path)

    /// Declares an issuer before its keys are loaded (its tokens are
    /// `keys_unavailable` until then) and who hears about its unknown kids.
    /// Keys already published for it are kept.
    public func register(issuer: String, unknownKidListener: (any UnknownKidListener)? = nil) {
        let id = IssuerID(issuer)
        update(id) { old in
            IssuerKeys(
                issuer: id, keys: old?.keys, isStale: old?.isStale ?? false,
                hooks: IssuerHooks(listener: unknownKidListener))
        }
    }

    /// Publishes a new key set for `issuer` (registering it if needed). Keys not
    /// in `keys` stop verifying at once. `stale`: served past their freshness.
    public func publish(_ keys: JWKSet, forIssuer issuer: String, stale: Bool = false) {
        let id = IssuerID(issuer)
        update(id) { old in
            IssuerKeys(issuer: id, keys: keys, isStale: stale, hooks: old?.hooks ?? IssuerHooks(listener: nil))
        }
    }

    /// Marks the keys held for `issuer` as served past their freshness (or fresh again), keeping them.
    public func setStale(_ stale: Bool, forIssuer issuer: String) {
        let id = IssuerID(issuer)
        update(id) { old in
            guard let old, old.isStale != stale else { return old }
            return IssuerKeys(issuer: id, keys: old.keys, isStale: stale, hooks: old.hooks)
        }
    }

    /// Drops the keys of `issuer` but keeps it registered: its tokens become
    /// `keys_unavailable` (keys past their maximum staleness).
    public func withdrawKeys(forIssuer issuer: String) {
        let id = IssuerID(issuer)
        update(id) { old in
            guard let old else { return nil }
            return IssuerKeys(issuer: id, keys: nil, isStale: false, hooks: old.hooks)
        }
    }

    /// Forgets `issuer` entirely.
    public func remove(issuer: String) {
        let id = IssuerID(issuer)
        let i = stripeIndex(id.hash)
        writers[i].withLock { _ in
            stripes[i].store(stripes[i].load().removing(id))
            publications.wrappingAdd(1, ordering: .releasing)
        }
    }

    /// Read-modify-publish of one issuer's entry; `body` returning nil leaves the stripe as it is.
    private func update(_ id: IssuerID, _ body: (IssuerKeys?) -> IssuerKeys?) {
        let i = stripeIndex(id.hash)
        writers[i].withLock { _ in
            let stripe = stripes[i].load()
            let old = stripe.entry(id)
            guard let next = body(old), next !== old else { return }
            stripes[i].store(stripe.replacing(next))
            publications.wrappingAdd(1, ordering: .releasing)
        }
    }

    // MARK: Readers

    /// The current entry for `issuer`, if registered.
    public func entry(forIssuer issuer: String) -> IssuerKeys? {
        let id = IssuerID(issuer)
        return stripes[stripeIndex(id.hash)].load().entry(id)
    }

    /// The keys currently published for `issuer`.
    public func keys(forIssuer issuer: String) -> JWKSet? { entry(forIssuer: issuer)?.keys }

    /// Every registered issuer.
    public var issuers: [String] { stripes.flatMap { $0.load().entries.map(\.issuer.name) } }

    /// Hot path: the entry for a prepared issuer, lent to `body` without a
    /// retain (valid only inside `body`). No lock, no allocation, no write to
    /// memory other threads read.
    @inline(__always)
    func withEntry<R, E: Error>(_ id: IssuerID, _ body: (IssuerKeys?) throws(E) -> R) throws(E) -> R {
        try id.bytes.withUnsafeBytes { bytes in
            Result { () throws(E) -> R in try withEntry(hash: id.hash, bytes, body) }
        }.get()
    }

    /// Hot path: the entry for an issuer given as bytes (decoded, not JSON-escaped)
    /// and their XXH3, lent to `body` as `withEntry(_:_:)` does.
    @inline(__always)
    func withEntry<R, E: Error>(
        hash: UInt64, _ issuer: UnsafeRawBufferPointer, _ body: (IssuerKeys?) throws(E) -> R
    ) throws(E) -> R {
        let i = stripeIndex(hash)
        return try cellRefs[i]._withUnsafeGuaranteedRef { cell in
            Result { () throws(E) -> R in
                try KeyStoreReaderCache.withStripe(self, i, cell) { (stripe) throws(E) -> R in
                    try stripe.withEntry(hash: hash, issuer, body)
                }
            }
        }.get()
    }

    /// An issuer given as bytes: its entry, retained (tests and slow paths).
    func entry(issuerBytes: UnsafeRawBufferPointer) -> IssuerKeys? {
        withEntry(hash: XXH3_64bits(issuerBytes.baseAddress, issuerBytes.count), issuerBytes) { $0 }
    }
}
