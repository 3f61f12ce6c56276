/// One shard's slots: a small open-addressing table with bounded probing; a
/// full neighbourhood evicts its least recently used entry. Hashes and LRU
/// stamps sit in their own arrays, so a probe reads no entry it does not
/// return and the entries stay immutable. Used only under its `Locked` mutex.
struct CacheShard {
    static let probeLimit = 8
    private var slots: [CacheEntry?]
    private var hashes: [UInt64]
    private var stamps: [UInt64]
    private var clock: UInt64 = 0
    private(set) var count = 0

    init(capacity: Int) {
        slots = Array(repeating: nil, count: capacity)
        hashes = Array(repeating: 0, count: capacity)
        stamps = Array(repeating: 0, count: capacity)
    }

    @inline(__always)
    private func home(_ hash: UInt64) -> Int { Int(truncatingIfNeeded: (hash >> 32) % UInt64(slots.count)) }

    @inline(__always)
    private func next(_ i: Int) -> Int { i + 1 == slots.count ? 0 : i + 1 }

    mutating func lookup(hash: UInt64, policy: UInt64) -> CacheEntry? {
        var i = home(hash)
        for _ in 0..<Self.probeLimit {
            if hashes[i] == hash, let entry = slots[i], entry.policy == policy {
                clock &+= 1
                stamps[i] = clock
                return entry
            }
            i = next(i)
        }
        return nil
    }

    /// The first entry stored under `hash`, whatever its policy (a router's probe: the caller compares
    /// the token, and the route it picks checks the policy, `JWTVerifier.lendCached(_:_:cacheOutcome:_:)`).
    mutating func lookup(hash: UInt64) -> CacheEntry? {
        var i = home(hash)
        for _ in 0..<Self.probeLimit {
            if hashes[i] == hash, let entry = slots[i] {
                clock &+= 1
                stamps[i] = clock
                return entry
            }
            i = next(i)
        }
        return nil
    }

    mutating func insert(_ entry: CacheEntry) {
        var i = home(entry.hash)
        var victim = i
        for _ in 0..<Self.probeLimit {
            guard let existing = slots[i] else { victim = i; break }
            if existing.hash == entry.hash && existing.policy == entry.policy { victim = i; break }
            if stamps[i] < stamps[victim] { victim = i }
            i = next(i)
        }
        if slots[victim] == nil { count += 1 }
        clock &+= 1
        slots[victim] = entry
        hashes[victim] = entry.hash
        stamps[victim] = clock
    }

    mutating func remove(_ token: UnsafeRawBufferPointer, hash: UInt64) {
        var i = home(hash)
        for _ in 0..<Self.probeLimit {
            if hashes[i] == hash, let entry = slots[i], entry.holds(token) {
                slots[i] = nil
                hashes[i] = 0
                count -= 1
                return
            }
            i = next(i)
        }
    }

    mutating func removeAll() {
        for i in slots.indices { slots[i] = nil; hashes[i] = 0 }
        count = 0
    }
}
