#if canImport(Glibc)
import Glibc
#endif

/// One cached verification, immutable: a reference can be used outside the
/// shard lock while another thread evicts the slot.
final class CacheEntry: Sendable {
    let hash: UInt64
    let policy: UInt64
    /// token ++ decoded header ++ decoded claims.
    let bytes: [UInt8]
    let tokenCount: Int
    let headerCount: Int
    let algorithm: JWTAlgorithm
    let key: VerificationKey
    let claims: RegisteredClaims
    let kidSpan: JSONSpan?

    init(token: UnsafeRawBufferPointer, hash: UInt64, policy: UInt64, verified: VerifiedToken) {
        self.hash = hash
        self.policy = policy
        self.bytes = Array(token) + Array(verified.header) + Array(verified.claimsJSON)
        self.tokenCount = token.count
        self.headerCount = verified.header.count
        self.algorithm = verified.algorithm
        self.key = verified.key
        self.claims = verified.claims
        self.kidSpan = verified.kidSpan
    }

    /// The full token, byte for byte: the hash only chose the slot.
    @inline(__always)
    func holds(_ token: UnsafeRawBufferPointer) -> Bool {
        tokenCount == token.count
            && bytes.withUnsafeBytes { memcmp($0.baseAddress!, token.baseAddress!, token.count) == 0 }
    }
}
