internal import CXXHash

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
    public let configuration: Configuration
    /// XXH3 secret derived from per-process random bytes: an attacker cannot
    /// precompute tokens that crowd one slot (and a collision could never verify anyway).
    /// Precomputed once, so hashing does not re-derive it per token as `_withSeed` does.
    // Safety: written once in init, only read (by XXH3) afterwards, freed in deinit.
    private nonisolated(unsafe) let secret: UnsafeMutableRawPointer
    private static let secretSize = 192
    private let shards: [Locked<CacheShard>]
    /// The same shards as unretained references, so a lookup does not retain and release its shard.
    // Safety: `shards` (a `let`) keeps every shard alive for the cache's lifetime; written in init, freed in deinit.
    private nonisolated(unsafe) let shardRefs: UnsafeMutablePointer<Unmanaged<Locked<CacheShard>>>
    private let shardMask: Int

    public init(_ configuration: Configuration = Configuration()) {
        var shardCount = 1
        while shardCount < max(1, configuration.shards) { shardCount <<= 1 }
        self.configuration = configuration
        self.shardMask = shardCount - 1
        let perShard = max(CacheShard.probeLimit, (configuration.capacity + shardCount - 1) / shardCount)
        let shards = (0..<shardCount).map { _ in Locked(CacheShard(capacity: perShard)) }
        self.shards = shards
        shardRefs = .allocate(capacity: shardCount)
        for (i, shard) in shards.enumerated() { (shardRefs + i).initialize(to: .passUnretained(shard)) }
        guard let seed = SecureRandom.bytes(32) else { fatalError("OpenSSL could not provide random bytes") }
        secret = UnsafeMutableRawPointer.allocate(byteCount: Self.secretSize, alignment: 64)
        precondition(XXH3_generateSecret(secret, Self.secretSize, seed, seed.count) == XXH_OK)
    }

    deinit {
        secret.deallocate()
        shardRefs.deallocate()
    }

    /// Entries currently held.
    public var count: Int { shards.reduce(0) { total, shard in total + shard.withLock { $0.count } } }

    public func removeAll() {
        for shard in shards { shard.withLock { $0.removeAll() } }
    }

    // MARK: Internal (used by JWTVerifier)

    /// Bytes at the end of a token that pick its slot. The tail holds the signature (random for every token a
    /// signer issues) where the head is shared by every token of an issuer; a hit still compares the whole token,
    /// so hashing part of it decides only where to look, never whether it matches.
    static let hashedTail = 64

    @inline(__always)
    func hash(_ token: UnsafeRawBufferPointer) -> UInt64 {
        let n = min(token.count, Self.hashedTail)
        let h = XXH3_64bits_withSecret(token.baseAddress.map { $0 + (token.count - n) }, n, secret, Self.secretSize)
        return h ^ UInt64(truncatingIfNeeded: token.count) &* 0x9E37_79B9_7F4A_7C15
    }

    /// Runs `body` under the lock of `hash`'s shard, reaching the shard without retaining it.
    @inline(__always)
    private func withShard<R>(_ hash: UInt64, _ body: (inout CacheShard) -> R) -> R {
        shardRefs[Int(truncatingIfNeeded: hash) & shardMask]._withUnsafeGuaranteedRef { $0.withLock(body) }
    }

    /// The entry stored under `hash`, if any: holding the reference keeps the
    /// entry's immutable bytes alive even if another thread evicts the slot,
    /// so the caller compares the token and lends the claims outside the lock.
    func lookup(hash: UInt64, policy: UInt64) -> CacheEntry? {
        withShard(hash) { $0.lookup(hash: hash, policy: policy) }
    }

    /// `lookup(hash:policy:)` for any policy (`MultiIssuerVerifier`'s probe before it has a route).
    func lookup(hash: UInt64) -> CacheEntry? {
        withShard(hash) { $0.lookup(hash: hash) }
    }

    func insert(_ token: UnsafeRawBufferPointer, hash: UInt64, policy: UInt64, verified: VerifiedToken) {
        let entry = CacheEntry(token: token, hash: hash, policy: policy, verified: verified)
        withShard(hash) { $0.insert(entry) }
    }

    func remove(_ token: UnsafeRawBufferPointer, hash: UInt64) {
        withShard(hash) { $0.remove(token, hash: hash) }
    }
}
