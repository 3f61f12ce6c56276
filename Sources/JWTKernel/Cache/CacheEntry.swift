#if canImport(Glibc)
import Glibc
#endif

/// One cached verification; immutable but for its LRU stamp (changed only under
/// its shard's lock), so a reference can be used outside the lock.
// Safety: @unchecked for `lastUse`, the only mutable field, which is read and written only under the shard lock.
final class CacheEntry: @unchecked Sendable {
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
