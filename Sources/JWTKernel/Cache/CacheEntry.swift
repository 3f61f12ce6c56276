import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One cached verification, immutable: a reference can be used outside the
/// shard lock while another thread evicts the slot.
///
/// The bytes live in memory the entry allocates (not an Array), so a hit reads
/// them through the entry it already holds, without retaining an array buffer.
// Safety: @unchecked because of the raw buffer `bytes`: written only in init, read-only until deinit frees it, and
// every reader holds a reference to the entry.
final class CacheEntry: @unchecked Sendable {
    let hash: UInt64
    let policy: UInt64
    /// token ++ decoded header ++ decoded claims.
    let bytes: UnsafeRawBufferPointer
    let tokenCount: Int
    let headerCount: Int
    let algorithm: JWTAlgorithm
    let key: VerificationKey
    let claims: RegisteredClaims
    let kidSpan: JSONSpan?
    let typSpan: JSONSpan?
    /// A front end's rendering of this entry, made once by the first hit that wants it (`CacheAttachment.swift`):
    /// 0 none yet, `CacheAttachment.declined`, or the address of bytes freed with the entry.
    let attachment = Atomic<UInt>(0)

    init(token: UnsafeRawBufferPointer, hash: UInt64, policy: UInt64, verified: VerifiedToken) {
        self.hash = hash
        self.policy = policy
        let total = token.count + verified.header.count + verified.claimsJSON.count
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(total, 1), alignment: 16)
        storage.copyMemory(from: token)
        UnsafeMutableRawBufferPointer(rebasing: storage[token.count...]).copyMemory(from: verified.header)
        UnsafeMutableRawBufferPointer(rebasing: storage[(token.count + verified.header.count)...])
            .copyMemory(from: verified.claimsJSON)
        self.bytes = UnsafeRawBufferPointer(rebasing: storage[0..<total])
        self.tokenCount = token.count
        self.headerCount = verified.header.count
        self.algorithm = verified.algorithm
        self.key = verified.key
        self.claims = verified.claims
        self.kidSpan = verified.kidSpan
        self.typSpan = verified.typSpan
    }

    deinit {
        UnsafeMutableRawPointer(mutating: bytes.baseAddress!).deallocate()
        CacheAttachment.free(attachment.load(ordering: .acquiring))
    }

    /// The full token, byte for byte: the hash only chose the slot.
    @inline(__always)
    func holds(_ token: UnsafeRawBufferPointer) -> Bool {
        tokenCount == token.count && (token.isEmpty || memcmp(bytes.baseAddress!, token.baseAddress!, token.count) == 0)
    }
}
