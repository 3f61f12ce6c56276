import COpenSSL
import CXXHash
import Synchronization

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
/// two threads rarely contend. Each shard is a small open-addressing table
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
    let seed: UInt64
    private let shards: [LockedShard]
    private let shardMask: Int

    public init(_ configuration: Configuration = Configuration()) {
        var shardCount = 1
        while shardCount < max(1, configuration.shards) { shardCount <<= 1 }
        self.configuration = configuration
        self.shardMask = shardCount - 1
        let perShard = max(Shard.probeLimit, (configuration.capacity + shardCount - 1) / shardCount)
        self.shards = (0..<shardCount).map { _ in LockedShard(Shard(capacity: perShard)) }
        // A per-process random seed: an attacker cannot precompute colliding tokens
        // to crowd out entries (and a collision could never verify anyway).
        var seed: UInt64 = 0
        if RAND_bytes(&seed, 8) != 1 { seed = UInt64(truncatingIfNeeded: time(nil)) &* 0x9E37_79B9_7F4A_7C15 }
        self.seed = seed
    }

    /// Entries currently held.
    public var count: Int { shards.reduce(0) { total, shard in total + shard.lock.withLock { $0.count } } }

    public func removeAll() {
        for shard in shards { shard.lock.withLock { $0.removeAll() } }
    }

    // MARK: Internal (used by JWTVerifier)

    struct Hash: Equatable {
        let low: UInt64, high: UInt64
    }

    func hash(_ token: UnsafeRawBufferPointer) -> Hash {
        let h = XXH3_128bits_withSeed(token.baseAddress, token.count, seed)
        return Hash(low: h.low64, high: h.high64)
    }

    /// On a hit, copies the entry's decoded header and claims into `scratch`
    /// (at least `token.count` bytes) and returns what is needed to rebuild
    /// the verified view; the entry's memory is never lent outside the lock.
    func lookup(_ token: UnsafeRawBufferPointer, hash: Hash, policy: UInt64, into scratch: UnsafeMutableRawPointer) -> CachedVerification? {
        shards[Int(truncatingIfNeeded: hash.low) & shardMask].lock.withLock { $0.lookup(token, hash: hash, policy: policy, into: scratch) }
    }

    func insert(_ token: UnsafeRawBufferPointer, hash: Hash, policy: UInt64, verified: VerifiedToken) {
        let entry = Entry(token: token, hash: hash, policy: policy, verified: verified)
        shards[Int(truncatingIfNeeded: hash.low) & shardMask].lock.withLock { $0.insert(entry) }
    }

    func remove(_ token: UnsafeRawBufferPointer, hash: Hash) {
        shards[Int(truncatingIfNeeded: hash.low) & shardMask].lock.withLock { $0.remove(token, hash: hash) }
    }
}

/// What a hit yields: enough to rebuild a `VerifiedToken` over the scratch copy.
struct CachedVerification {
    let algorithm: JWTAlgorithm
    let key: VerificationKey
    let headerCount: Int
    let claimsCount: Int
    let claims: RegisteredClaims
    let kidSpan: JSONSpan?
}

struct Entry {
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
        guard self.hash == hash, tokenCount == token.count else { return false }
        return bytes.withUnsafeBytes { memcmp($0.baseAddress!, token.baseAddress!, token.count) == 0 }
    }
}

/// One lock per shard, each in its own object (and so its own cache lines).
final class LockedShard: Sendable {
    let lock: Mutex<Shard>
    init(_ shard: Shard) { lock = Mutex(shard) }
}

struct Shard {
    static let probeLimit = 8
    private var slots: [Entry?]
    private var clock: UInt64 = 0
    private(set) var count = 0

    init(capacity: Int) { slots = Array(repeating: nil, count: capacity) }

    private func home(_ hash: VerifiedTokenCache.Hash) -> Int { Int(truncatingIfNeeded: hash.high % UInt64(slots.count)) }

    mutating func lookup(_ token: UnsafeRawBufferPointer, hash: VerifiedTokenCache.Hash, policy: UInt64,
                         into scratch: UnsafeMutableRawPointer) -> CachedVerification? {
        var i = home(hash)
        for _ in 0..<Self.probeLimit {
            if slots[i]?.holds(token, hash) == true {
                guard slots[i]!.policy == policy else { return nil }
                clock += 1
                slots[i]!.lastUse = clock
                let result = slots[i]!.result
                slots[i]!.bytes.withUnsafeBytes { b in
                    scratch.copyMemory(from: b.baseAddress! + token.count, byteCount: result.headerCount + result.claimsCount)
                }
                return result
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
        var e = entry
        e.lastUse = clock
        slots[victim] = e
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
