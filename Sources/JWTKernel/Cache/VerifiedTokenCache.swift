import COpenSSL
import CXXHash

#if canImport(Glibc)
import Glibc
#endif

/// Remembers tokens that verified, so a gateway seeing the same bearer token
/// many times a minute pays for the signature once.
///
/// What it trades: memory (each entry holds a copy of the token and its
/// decoded header and claims) for skipping base64, JSON and the public-key
/// operation on a hit. What it never trades: a hit requires the full token to
/// be byte-identical (the 128-bit hash only picks the slot, so a collision can
/// never verify a token), `exp`/`nbf`/`iat` are re-checked against the clock,
/// the key that verified the entry must still be in the verifier's key set,
/// and the verifier's policy must be the one the entry was checked under.
///
/// Sharded: each shard has its own lock, and the shard is chosen by hash, so
/// two threads rarely contend; the lock covers only the slot probe, never the
/// token comparison or the caller's use of the claims. Each shard is a small open-addressing table
/// with bounded probing; a full neighbourhood evicts its least recently used entry.
public final class VerifiedTokenCache: Sendable {
    public struct Configuration: Sendable {
        /// Entries across all shards.
        public var capacity: Int
        /// Longer tokens are never cached (they are rare and costly to keep).
        public var maxTokenSize: Int
        public var shards: Int

        public init(capacity: Int = 16_384, maxTokenSize: Int = 4096, shards: Int = 16) {
            self.capacity = capacity
            self.maxTokenSize = maxTokenSize
            self.shards = shards
        }
    }

    public let configuration: Configuration
    /// XXH3 secret derived from per-process random bytes: an attacker cannot
    /// precompute tokens that crowd one slot (and a collision could never verify anyway).
    /// Precomputed once, so hashing does not re-derive it per token as `_withSeed` does.
    private nonisolated(unsafe) let secret: UnsafeMutableRawPointer
    private static let secretSize = 192
    private let shards: [LockedShard]
    private let shardMask: Int

    public init(_ configuration: Configuration = Configuration()) {
        var shardCount = 1
        while shardCount < max(1, configuration.shards) { shardCount <<= 1 }
        self.configuration = configuration
        self.shardMask = shardCount - 1
        let perShard = max(Shard.probeLimit, (configuration.capacity + shardCount - 1) / shardCount)
        self.shards = (0..<shardCount).map { _ in LockedShard(Shard(capacity: perShard)) }
        var seed = [UInt8](repeating: 0, count: 32)
        precondition(RAND_bytes(&seed, Int32(seed.count)) == 1, "OpenSSL could not provide random bytes")
        secret = UnsafeMutableRawPointer.allocate(byteCount: Self.secretSize, alignment: 64)
        precondition(XXH3_generateSecret(secret, Self.secretSize, seed, seed.count) == XXH_OK)
    }

    deinit { secret.deallocate() }

    /// Entries currently held.
    public var count: Int { shards.reduce(0) { total, shard in total + shard.withLock { $0.count } } }

    public func removeAll() {
        for shard in shards { shard.withLock { $0.removeAll() } }
    }

    // MARK: Internal (used by JWTVerifier)

    struct Hash: Equatable {
        let low: UInt64, high: UInt64
    }

    func hash(_ token: UnsafeRawBufferPointer) -> Hash {
        let h = XXH3_128bits_withSecret(token.baseAddress, token.count, secret, Self.secretSize)
        return Hash(low: h.low64, high: h.high64)
    }

    /// The entry stored under `hash`, if any, as a value: holding it keeps the
    /// entry's immutable bytes alive even if another thread evicts the slot,
    /// so the caller compares the token and lends the claims outside the lock.
    func lookup(hash: Hash, policy: UInt64) -> Entry? {
        shards[Int(truncatingIfNeeded: hash.low) & shardMask].withLock { $0.lookup(hash: hash, policy: policy) }
    }

    func insert(_ token: UnsafeRawBufferPointer, hash: Hash, policy: UInt64, verified: VerifiedToken) {
        let entry = Entry(token: token, hash: hash, policy: policy, verified: verified)
        shards[Int(truncatingIfNeeded: hash.low) & shardMask].withLock { $0.insert(entry) }
    }

    func remove(_ token: UnsafeRawBufferPointer, hash: Hash) {
        shards[Int(truncatingIfNeeded: hash.low) & shardMask].withLock { $0.remove(token, hash: hash) }
    }
}

/// What a hit yields: enough to rebuild a `VerifiedToken` over the entry's bytes.
struct CachedVerification {
    let algorithm: JWTAlgorithm
    let key: VerificationKey
    let headerCount: Int
    let claimsCount: Int
    let claims: RegisteredClaims
    let kidSpan: JSONSpan?
}

/// One cached verification; immutable but for its LRU stamp (changed only under
/// its shard's lock), so a reference can be used outside the lock.
final class Entry: @unchecked Sendable {
    let hash: VerifiedTokenCache.Hash
    let policy: UInt64
    /// token ++ decoded header ++ decoded claims.
    let bytes: [UInt8]
    let tokenCount: Int
    let result: CachedVerification
    var lastUse: UInt64 = 0

    init(token: UnsafeRawBufferPointer, hash: VerifiedTokenCache.Hash, policy: UInt64, verified: VerifiedToken) {
        self.hash = hash
        self.policy = policy
        self.bytes = Array(token) + Array(verified.header) + Array(verified.claimsJSON)
        self.tokenCount = token.count
        self.result = CachedVerification(
            algorithm: verified.algorithm, key: verified.key, headerCount: verified.header.count,
            claimsCount: verified.claimsJSON.count, claims: verified.claims, kidSpan: verified.kidSpan)
    }

    func holds(_ token: UnsafeRawBufferPointer, _ hash: VerifiedTokenCache.Hash) -> Bool {
        self.hash == hash && holds(token)
    }

    /// The full token, byte for byte: the hash only chose the slot.
    func holds(_ token: UnsafeRawBufferPointer) -> Bool {
        tokenCount == token.count && bytes.withUnsafeBytes { memcmp($0.baseAddress!, token.baseAddress!, token.count) == 0 }
    }
}

/// One lock per shard, each in its own object (and so its own cache lines).
/// A pthread mutex rather than `Synchronization.Mutex`: on Linux the latter
/// locks inside the uninstrumented standard library, which ThreadSanitizer
/// cannot see, so every access it guards would be reported as a race.
final class LockedShard: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var shard: Shard

    init(_ shard: Shard) {
        self.shard = shard
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<R>(_ body: (inout Shard) -> R) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body(&shard)
    }
}

struct Shard {
    static let probeLimit = 8
    private var slots: [Entry?]
    private var clock: UInt64 = 0
    private(set) var count = 0

    init(capacity: Int) { slots = Array(repeating: nil, count: capacity) }

    private func home(_ hash: VerifiedTokenCache.Hash) -> Int { Int(truncatingIfNeeded: hash.high % UInt64(slots.count)) }

    mutating func lookup(hash: VerifiedTokenCache.Hash, policy: UInt64) -> Entry? {
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

    mutating func insert(_ entry: Entry) {
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
