/// One shard's slots: a small open-addressing table with bounded probing;
/// a full neighbourhood evicts its least recently used entry. Used only under
/// its `Locked` wrapper's mutex.
struct CacheShard {
    static let probeLimit = 8
    private var slots: [CacheEntry?]
    private var clock: UInt64 = 0
    private(set) var count = 0

    init(capacity: Int) { slots = Array(repeating: nil, count: capacity) }

    private func home(_ hash: VerifiedTokenCache.Hash) -> Int { Int(truncatingIfNeeded: hash.high % UInt64(slots.count)) }

    mutating func lookup(hash: VerifiedTokenCache.Hash, policy: UInt64) -> CacheEntry? {
        var i = home(hash)
        for _ in 0..<Self.probeLimit {
            if slots[i]?.hash == hash {
                guard slots[i]!.policy == policy else { return nil }
                clock += 1
                slots[i]!.lastUse = clock
                return slots[i]
            }
            i = i + 1 == slots.count ? 0 : i + 1
        }
        return nil
    }

    mutating func insert(_ entry: CacheEntry) {
        var i = home(entry.hash)
        var victim = i
        for _ in 0..<Self.probeLimit {
            guard let existing = slots[i] else { victim = i; break }
            if existing.hash == entry.hash { victim = i; break }
            if existing.lastUse < slots[victim]!.lastUse { victim = i }
            i = i + 1 == slots.count ? 0 : i + 1
        }
        if slots[victim] == nil { count += 1 }
        clock += 1
        entry.lastUse = clock
        slots[victim] = entry
    }

    mutating func remove(_ token: UnsafeRawBufferPointer, hash: VerifiedTokenCache.Hash) {
        var i = home(hash)
        for _ in 0..<Self.probeLimit {
            if slots[i]?.holds(token, hash) == true {
                slots[i] = nil
                count -= 1
                return
            }
            i = i + 1 == slots.count ? 0 : i + 1
        }
    }

    mutating func removeAll() {
        for i in slots.indices { slots[i] = nil }
        count = 0
    }
}
