/// Verifies compact JWS/JWT tokens against a trusted key set and a claims
/// policy. Immutable and thread-safe: one instance serves every thread.
///
/// The hot path, in order (see docs/ARCHITECTURE.md):
/// size limit -> segments -> base64url decode into per-thread scratch ->
/// header -> alg allowed -> typ -> key by kid -> signature -> claims -> policy.
public final class JWTVerifier: Sendable {
    public let keys: JWKSet
    public let policy: ClaimsPolicy
    public let clock: any JWTClock
    /// Tokens longer than this are `too_large` before any decoding.
    public let maxTokenSize: Int
    /// Successful verifications remembered across calls; nil: every token is verified in full.
    public let cache: VerifiedTokenCache?
    /// `cache` unretained (`cache` keeps it alive), so a verification reaches it without a retain and release.
    let cacheRef: Unmanaged<VerifiedTokenCache>?
    @_spi(Internals) public let compiled: CompiledPolicy
    let policyFingerprint: UInt64
    /// Where keys come from: `keys`, or an issuer's keys in a `KeyStore`.
    let resolution: KeyResolution

    public static let defaultMaxTokenSize = 16 * 1024

    public convenience init(
        keys: JWKSet, policy: ClaimsPolicy = ClaimsPolicy(), clock: any JWTClock = SystemClock(),
        maxTokenSize: Int = JWTVerifier.defaultMaxTokenSize, cache: VerifiedTokenCache? = nil
    ) {
        self.init(
            resolution: .fixed(keys), keys: keys, policy: policy, clock: clock, maxTokenSize: maxTokenSize, cache: cache
        )
    }

    init(
        resolution: KeyResolution, keys: JWKSet, policy: ClaimsPolicy, clock: any JWTClock,
        maxTokenSize: Int, cache: VerifiedTokenCache?
    ) {
        self.resolution = resolution
        self.keys = keys
        self.policy = policy
        self.clock = clock
        self.maxTokenSize = maxTokenSize
        self.cache = cache
        self.cacheRef = cache.map { Unmanaged.passUnretained($0) }
        self.compiled = CompiledPolicy(policy)
        self.policyFingerprint = compiled.fingerprint
    }

    /// The same policy, clock and cache with a new key set (key rotation).
    /// Cached tokens verified by keys that are no longer in `keys` stop hitting.
    public func replacingKeys(_ keys: JWKSet) -> JWTVerifier {
        JWTVerifier(keys: keys, policy: policy, clock: clock, maxTokenSize: maxTokenSize, cache: cache)
    }

    // MARK: JWT

    /// A String's UTF-8 in place (native strings are not copied), keeping the typed error.
    static func withBytes<R>(
        _ token: String, _ body: (UnsafeRawBufferPointer) throws(JWTError) -> R
    ) throws(JWTError) -> R {
        var token = token
        return try token.withUTF8 { utf8 in Result { () throws(JWTError) in try body(UnsafeRawBufferPointer(utf8)) } }
            .get()
    }

    /// The one implementation behind every `verify`: the cache first (when there is one and
    /// the token fits), then the full pipeline; `cacheOutcome` says which answered. `now`: the time
    /// to judge the token at (Unix seconds), or nil for this verifier's clock (read when needed).
    @inline(__always)
    public func verifyLending(
        _ token: UnsafeRawBufferPointer, at now: Int64? = nil, cacheOutcome: inout CacheOutcome,
        _ body: (VerifiedToken) -> Void
    ) throws(JWTError) {
        try verifyLending(token, at: now, cacheOutcome: &cacheOutcome, holding: nil, body)
    }

    /// `verifyLending`, and a cache hit's entry handed to `hold` before `body` runs (`CacheHold`).
    @_spi(Internals)
    @inline(__always)
    public func verifyLending(
        _ token: UnsafeRawBufferPointer, at now: Int64?, cacheOutcome: inout CacheOutcome, holding hold: CacheHold?,
        _ body: (VerifiedToken) -> Void
    ) throws(JWTError) {
        guard let cacheRef else {
            cacheOutcome = .notUsed
            return try verifyInFull(token, at: now, body)
        }
        try cacheRef._withUnsafeGuaranteedRef { cache in
            Result { () throws(JWTError) in
                try verifyLending(token, cache: cache, at: now, cacheOutcome: &cacheOutcome, holding: hold, body)
            }
        }.get()
    }

    @inline(__always)
    private func verifyLending(
        _ token: UnsafeRawBufferPointer, cache: VerifiedTokenCache, at now: Int64?, cacheOutcome: inout CacheOutcome,
        holding hold: CacheHold?, _ body: (VerifiedToken) -> Void
    ) throws(JWTError) {
        guard token.count <= cache.configuration.maxTokenSize, token.count <= maxTokenSize else {
            cacheOutcome = .notUsed
            return try verifyInFull(token, at: now, body)
        }
        let hash = cache.hash(token)
        cacheOutcome = .hit
        if try lendCached(token, hash: hash, cache: cache, at: now, holding: hold, body) { return }
        cacheOutcome = .miss
        try verifyInFull(token, at: now) { verified in
            cache.insert(token, hash: hash, policy: policyFingerprint, verified: verified)
            body(verified)
        }
    }
}
