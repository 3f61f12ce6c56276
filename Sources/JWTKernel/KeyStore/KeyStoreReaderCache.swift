#if canImport(Glibc)
import Glibc
#endif

/// One thread's references to the stripe snapshots it last read, per key store,
/// each with the generation it had when taken: the reason a lookup neither
/// locks nor writes memory another thread reads.
///
/// A lookup loads the stripe's generation; if it equals the cached one, the
/// cached snapshot is still the published one and is used as it is (this
/// thread's strong reference keeps it alive, so no retain). Otherwise the
/// thread takes the new snapshot under the cell's mutex and drops the old one.
/// Threads thus keep superseded snapshots (and their keys' memory) until they
/// next read that stripe, or end; never beyond, and a superseded snapshot is
/// never used for a lookup, since every lookup checks the generation first.
///
/// `pinned` counts lookups in progress on this thread: a snapshot dropped
/// while one is (a nested lookup from an unknown-kid listener) is released
/// only when the outermost ends, so no lookup's borrowed references dangle.
final class KeyStoreReaderCache {
    /// One key store's snapshots, indexed by stripe.
    struct View {
        /// The store's `id`; 0: a free view.
        var storeID: UInt64 = 0
        var count = 0
        var generations: UnsafeMutablePointer<UInt64>? = nil
        var snapshots: UnsafeMutablePointer<Unmanaged<KeyStoreStripe>?>? = nil
    }

    /// Stores a thread reads from at once before the least recent is dropped.
    static let viewCount = 4
    private let views: UnsafeMutablePointer<View>
    private var lastView = 0
    private var nextVictim = 0
    private var pinned = 0
    private var deferred: [Unmanaged<KeyStoreStripe>] = []

    private init() {
        views = .allocate(capacity: Self.viewCount)
        views.initialize(repeating: View(), count: Self.viewCount)
    }

    deinit {
        for i in 0..<Self.viewCount { clear(&views[i]) }
        views.deallocate()
        for s in deferred { s.release() }
    }

    /// Lends `body` the current snapshot of stripe `index` of `store`, unretained.
    @inline(__always)
    static func withStripe<R, E: Error>(
        _ store: KeyStore, _ index: Int, _ cell: SnapshotCell<KeyStoreStripe>,
        _ body: (KeyStoreStripe) throws(E) -> R
    ) throws(E) -> R {
        let cache = current
        let view = cache.view(store)
        // Acquire pairs with the writer's releasing increment; the snapshot itself
        // was taken under the cell's mutex, which orders its contents.
        let g = cell.generation.load(ordering: .acquiring)
        let snapshot: Unmanaged<KeyStoreStripe>
        if view.pointee.generations.unsafelyUnwrapped[index] == g,
            let cached = view.pointee.snapshots.unsafelyUnwrapped[index]
        {
            snapshot = cached
        } else {
            snapshot = cache.refill(view, index, cell)
        }
        cache.pinned += 1
        defer {
            cache.pinned -= 1
            if cache.pinned == 0, !cache.deferred.isEmpty { cache.releaseDeferred() }
        }
        return try snapshot._withUnsafeGuaranteedRef { s in Result { () throws(E) -> R in try body(s) } }.get()
    }

    /// The view for `store`, making one (dropping the least recent) if this thread has none.
    @inline(__always)
    private func view(_ store: KeyStore) -> UnsafeMutablePointer<View> {
        if views[lastView].storeID == store.id { return views + lastView }
        return findView(store)
    }

    @inline(never)
    private func findView(_ store: KeyStore) -> UnsafeMutablePointer<View> {
        for i in 0..<Self.viewCount where views[i].storeID == store.id {
            lastView = i
            return views + i
        }
        let i = (0..<Self.viewCount).first { views[$0].storeID == 0 } ?? nextVictim
        nextVictim = (i + 1) % Self.viewCount
        clear(&views[i])
        let n = store.stripeCount
        let generations = UnsafeMutablePointer<UInt64>.allocate(capacity: n)
        generations.initialize(repeating: 0, count: n)
        let snapshots = UnsafeMutablePointer<Unmanaged<KeyStoreStripe>?>.allocate(capacity: n)
        snapshots.initialize(repeating: nil, count: n)
        views[i] = View(storeID: store.id, count: n, generations: generations, snapshots: snapshots)
        lastView = i
        return views + i
    }

    /// The slow path: the stripe changed since this thread last read it.
    @inline(never)
    private func refill(
        _ view: UnsafeMutablePointer<View>, _ index: Int, _ cell: SnapshotCell<KeyStoreStripe>
    ) -> Unmanaged<KeyStoreStripe> {
        let (snapshot, g) = cell.loadWithGeneration()
        let next = Unmanaged.passRetained(snapshot)
        if let old = view.pointee.snapshots.unsafelyUnwrapped[index] { retire(old) }
        view.pointee.snapshots.unsafelyUnwrapped[index] = next
        view.pointee.generations.unsafelyUnwrapped[index] = g
        return next
    }

    private func clear(_ view: inout View) {
        guard let snapshots = view.snapshots, let generations = view.generations else { return }
        for i in 0..<view.count { if let s = snapshots[i] { retire(s) } }
        snapshots.deinitialize(count: view.count)
        snapshots.deallocate()
        generations.deallocate()
        view = View()
    }

    private func retire(_ snapshot: Unmanaged<KeyStoreStripe>) {
        if pinned > 0 { deferred.append(snapshot) } else { snapshot.release() }
    }

    private func releaseDeferred() {
        let list = deferred
        deferred = []
        for s in list { s.release() }
    }

    private static var current: KeyStoreReaderCache {
        @inline(__always) get {
            if let raw = pthread_getspecific(key) {
                return Unmanaged<KeyStoreReaderCache>.fromOpaque(raw).takeUnretainedValue()
            }
            return make()
        }
    }

    @inline(never)
    private static func make() -> KeyStoreReaderCache {
        let cache = KeyStoreReaderCache()
        pthread_setspecific(key, Unmanaged.passRetained(cache).toOpaque())
        return cache
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { raw in
            Unmanaged<KeyStoreReaderCache>.fromOpaque(raw!).release()
        }
        return key
    }()
}
