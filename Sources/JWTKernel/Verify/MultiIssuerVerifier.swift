/// Verifies tokens of several issuers, each with its own keys (from a
/// `KeyStore`) and its own `ClaimsPolicy`.
///
/// A token is routed by its `iss`, read strictly (the whole claims set is
/// validated, duplicates refused) before the signature is checked; the
/// signature is then checked only with that issuer's keys, and `iss` is
/// checked again by that issuer's policy (or, for a multi-tenant template,
/// against the token's `tid` while routing). A token whose `iss` is not
/// configured is `unknown_issuer`; one whose issuer never had keys loaded is
/// `keys_unavailable`. Immutable and thread-safe, like `JWTVerifier`.
///
/// Each token is decoded and its claims read once: the claims read for routing
/// (with the required-claim names of every route) are the ones the chosen
/// route's policy checks. Exact issuers are found through a hashed index, so
/// routing costs the same with one issuer as with thousands.
///
/// With a fallback (SPI, the C library's any-issuer keys) a token whose `iss`
/// matches no issuer, or that has none, is verified by the fallback's keys and
/// policy instead of failing; with only a fallback no token is routed (nothing
/// is read before the fallback's own pipeline). With a cache, a repeated token
/// is routed by the `iss` of its cached verification before anything is decoded.
// Safety: @unchecked only for `routeRefs`, an immutable unretained copy of `routes` made in init, freed in deinit.
public final class MultiIssuerVerifier: @unchecked Sendable {
    public let store: KeyStore
    public let issuers: [IssuerConfiguration]
    public let maxTokenSize: Int
    /// One verifier per issuer, reading its key set from the store.
    private let routes: [JWTVerifier]
    /// `routes` unretained: the route of a token is used without a retain (a
    /// write to that issuer's verifier, a cold cache line, per verification).
    @usableFromInline let routeRefs: UnsafeMutablePointer<Unmanaged<JWTVerifier>>
    private let patterns: [IssuerPattern]
    private let hasTemplates: Bool
    private let index: IssuerRouteIndex
    /// The required-claim names of all routes, read in the one pass over the
    /// claims; nil when there are more than a pass can track (64), and then a
    /// route with required claims reads the claims again with its own.
    private let requiredNames: [[UInt8]]
    private let requiredKeys: [JSONNameKey]
    private let readsAllRequired: Bool
    /// Per route: the position in `requiredNames` of each of its required claims.
    private let requiredMaps: [[Int]]
    /// The route of a token no issuer matches (its index in `routes`, behind the issuers), or nil.
    private let fallback: Int?
    /// The fallback's verifier when there are no issuers: every token goes to it unrouted.
    private let unrouted: JWTVerifier?
    /// `unrouted != nil`, read without loading (and retaining) the reference.
    @usableFromInline let isUnrouted: Bool
    private let cache: VerifiedTokenCache?

    public convenience init(
        store: KeyStore, issuers: [IssuerConfiguration], clock: any JWTClock = SystemClock(),
        maxTokenSize: Int = JWTVerifier.defaultMaxTokenSize, cache: VerifiedTokenCache? = nil
    ) {
        self.init(
            store: store, issuers: issuers, fallback: nil, clock: clock, maxTokenSize: maxTokenSize, cache: cache)
    }

    /// `fallback`: the keys (`keyIssuer`) and policy (used as given, not narrowed to an `iss`) of a token whose
    /// `iss` matches none of `issuers`, or that has no `iss`; its `issuer` is not used for routing.
    /// `pinned`: each route reads the store entry published when this was made (no store lookup per token;
    /// an issuer without an entry still reads the store): for an owner that makes a new verifier whenever
    /// `store.generation` moves (the C library's routes).
    @_spi(Internals)
    public init(
        store: KeyStore, issuers: [IssuerConfiguration], fallback: IssuerConfiguration?, pinned: Bool = false,
        clock: any JWTClock = SystemClock(), maxTokenSize: Int = JWTVerifier.defaultMaxTokenSize,
        cache: VerifiedTokenCache? = nil
    ) {
        self.store = store
        self.cache = cache
        self.issuers = issuers
        self.maxTokenSize = maxTokenSize
        // Exact issuers are tried before templates, whatever the configuration order.
        let ordered = issuers.filter { !$0.isTemplate } + issuers.filter(\.isTemplate)
        self.patterns = ordered.map { IssuerPattern($0.issuer) }
        self.hasTemplates = patterns.contains(where: \.isTemplate)
        func route(_ config: IssuerConfiguration, policy: ClaimsPolicy) -> JWTVerifier {
            let entry = pinned ? store.entry(forIssuer: config.keyIssuer) : nil
            return JWTVerifier(
                resolution: entry.map(KeyResolution.pinned) ?? .store(store, IssuerID(config.keyIssuer)),
                keys: JWKSet(keys: []),
                policy: policy, clock: clock, maxTokenSize: maxTokenSize, cache: cache)
        }
        var routes = ordered.map { config in
            var policy = config.policy
            if policy.issuers.isEmpty, !config.isTemplate { policy.issuers = [config.issuer] }
            return route(config, policy: policy)
        }
        if let fallback {
            self.fallback = routes.count
            routes.append(route(fallback, policy: fallback.policy))
        } else {
            self.fallback = nil
        }
        self.unrouted = ordered.isEmpty ? routes.first : nil
        self.isUnrouted = ordered.isEmpty && !routes.isEmpty
        self.routes = routes
        self.index = IssuerRouteIndex(patterns)
        var names: [[UInt8]] = []
        var positions: [[UInt8]: Int] = [:]
        self.requiredMaps = routes.map { route in
            route.compiled.requiredClaims.map { name in
                if let at = positions[name] { return at }
                names.append(name)
                positions[name] = names.count - 1
                return names.count - 1
            }
        }
        self.readsAllRequired = names.count <= 64
        self.requiredNames = readsAllRequired ? names : []
        self.requiredKeys = readsAllRequired ? names.map { JSONNameKey(bytes: $0) } : []
        self.routeRefs = .allocate(capacity: max(routes.count, 1))
        for (i, route) in routes.enumerated() { routeRefs[i] = Unmanaged.passUnretained(route) }
    }

    deinit { routeRefs.deallocate() }

    /// The verifier that handles tokens whose `iss` is exactly `issuer` (and `tid`, for templates).
    public func verifier(forIssuer issuer: String, tenant: String? = nil) -> JWTVerifier? {
        let iss = Array(issuer.utf8), tid = tenant.map { Array($0.utf8) }
        return iss.withUnsafeBytes { issBytes in
            let index: Int?
            if let tid {
                index = tid.withUnsafeBytes { t in patterns.firstIndex { $0.matches(iss: issBytes, tid: t) } }
            } else {
                index = patterns.firstIndex { $0.matches(iss: issBytes, tid: nil) }
            }
            return index.map { routes[$0] }
        }
    }

    /// What the cache probe before routing found: the token's hash, and whether no entry holds the
    /// token at all (then the route's own lookup would miss too and is skipped).
    private struct Probed {
        let hash: UInt64
        let absent: Bool
    }

    /// The one implementation behind every `verify`: unrouted to the fallback when there are no
    /// issuers; otherwise a cached token by its cached `iss`, then the payload decoded and read once
    /// to route it, and the route's cache, header, signature and policy. `now`: the time to judge the
    /// token at (Unix seconds), nil for the routes' clock.
    @inline(__always)
    public func verifyLending(
        _ token: UnsafeRawBufferPointer, at now: Int64?, cacheOutcome: inout CacheOutcome,
        _ body: (VerifiedToken) -> Void
    ) throws(JWTError) {
        try verifyLending(token, at: now, cacheOutcome: &cacheOutcome, holding: nil, body)
    }

    /// `verifyLending`, and a cache hit's entry handed to `hold` before `body` runs (`CacheHold`). Inlinable, so
    /// that the C library's `jwtk_verify` calls an unrouted verifier's route directly: the call through this
    /// layer was ~44 instructions and ~2 ns of a ~50 ns C cache hit.
    @_spi(Internals)
    @inlinable
    public func verifyLending(
        _ token: UnsafeRawBufferPointer, at now: Int64?, cacheOutcome: inout CacheOutcome, holding hold: CacheHold?,
        _ body: (VerifiedToken) -> Void
    ) throws(JWTError) {
        if isUnrouted {
            // routeRefs[0] is `unrouted` (the only route), used without a retain as every route is.
            return try routeRefs[0]._withUnsafeGuaranteedRef { verifier in
                Result { () throws(JWTError) in
                    try verifier.verifyLending(token, at: now, cacheOutcome: &cacheOutcome, holding: hold, body)
                }
            }.get()
        }
        try verifyLendingRouted(token, at: now, cacheOutcome: &cacheOutcome, holding: hold, body)
    }

    /// `verifyLending` with routes, out of line: the inlined part is the unrouted verifier's call alone.
    @_spi(Internals)
    @usableFromInline
    func verifyLendingRouted(
        _ token: UnsafeRawBufferPointer, at now: Int64?, cacheOutcome: inout CacheOutcome, holding hold: CacheHold?,
        _ body: (VerifiedToken) -> Void
    ) throws(JWTError) {
        cacheOutcome = .notUsed
        var probed: Probed? = nil
        if let cache, token.count <= cache.configuration.maxTokenSize, token.count <= maxTokenSize {
            let hash = cache.hash(token)
            if let entry = cache.lookup(hash: hash), entry.holds(token) {
                if let r = cachedRoute(entry) {
                    // Taken inside, so the route's hit consumes the lookup's reference (to `hold`) without a retain.
                    var probe: CacheEntry? = entry
                    let answered = try routeRefs[r]._withUnsafeGuaranteedRef { verifier in
                        Result { () throws(JWTError) -> Bool in
                            try verifier.lendCached(
                                token, probed: probe.take()!, hash: hash, at: now, cacheOutcome: &cacheOutcome,
                                holding: hold, body)
                        }
                    }.get()
                    if answered { return }
                }
                probed = Probed(hash: hash, absent: false)
            } else {
                probed = Probed(hash: hash, absent: true)
            }
        }
        try DecodedSegments.with(token, maxTokenSize: maxTokenSize) { (segments, scratch) throws(JWTError) in
            try segments.decodePayload()
            let payload = segments.payload
            var claims = try RegisteredClaims.read(payload, required: requiredKeys, requiredNames: requiredNames)
            let r = try route(claims, payload)
            claims = try requiredClaims(of: r, claims, payload)
            try routeRefs[r]._withUnsafeGuaranteedRef { verifier in
                Result { () throws(JWTError) in
                    try verifyRouted(
                        token, segments, verifier, claims, scratch: scratch, probed: probed, at: now,
                        cacheOutcome: &cacheOutcome, holding: hold, body)
                }
            }.get()
        }
    }

    /// The verifier that would check `token`: the fallback without issuers, a cached token's route by its
    /// cached `iss`, else the route of its `iss` (the payload decoded and read; errors as `verify`'s). For
    /// a caller that groups tokens per route (the C library's batch), which then verifies them there.
    @_spi(Internals)
    public func route(of token: UnsafeRawBufferPointer) throws(JWTError) -> JWTVerifier {
        if let unrouted { return unrouted }
        if let cache, token.count <= cache.configuration.maxTokenSize, token.count <= maxTokenSize {
            let hash = cache.hash(token)
            if let entry = cache.lookup(hash: hash), entry.holds(token), let r = cachedRoute(entry) { return routes[r] }
        }
        var r = 0
        try DecodedSegments.with(token, maxTokenSize: maxTokenSize) { (segments, _) throws(JWTError) in
            try segments.decodePayload()
            let claims = try RegisteredClaims.read(segments.payload, required: [], requiredNames: [])
            r = try route(claims, segments.payload)
        }
        return routes[r]
    }

    /// The verifier whose policy judges an encrypted-only token's decrypted claims, routed by their `iss` as a
    /// signed token's payload is (`MultiIssuerVerifier+JWE`).
    func route(ofClaims payload: UnsafeRawBufferPointer) throws(JWTError) -> JWTVerifier {
        if let unrouted { return unrouted }
        let claims = try RegisteredClaims.read(payload, required: [], requiredNames: [])
        return routes[try route(claims, payload)]
    }

    /// The route of a cached verification by its stored `iss` (the token's own: the whole token matched),
    /// or nil: route it by its payload (an escaped `iss`, or one only a template could match).
    @inline(__always)
    private func cachedRoute(_ entry: CacheEntry) -> Int? {
        guard let iss = entry.claims.iss else { return fallback }
        guard !iss.escaped else { return nil }
        // Safety: the entry's immutable bytes are token ++ header ++ claims, the span indexes the claims, and
        // the caller holds the entry.
        let claims = entry.bytes.baseAddress! + entry.tokenCount + entry.headerCount
        let bytes = UnsafeRawBufferPointer(start: claims + iss.start, count: iss.count)
        if let r = index.route(bytes, patterns: patterns) { return r }
        return hasTemplates ? nil : fallback
    }

    /// The rest of `verify` once the route is known: the cache, then header, signature and policy.
    @inline(__always)
    private func verifyRouted(
        _ token: UnsafeRawBufferPointer, _ segments: DecodedSegments, _ verifier: JWTVerifier,
        _ claims: RegisteredClaims, scratch: ThreadScratch, probed: Probed?, at now: Int64?,
        cacheOutcome: inout CacheOutcome, holding hold: CacheHold?, _ body: (VerifiedToken) -> Void
    ) throws(JWTError) {
        var hash: UInt64 = 0
        let cache = verifier.cache.flatMap {
            token.count <= $0.configuration.maxTokenSize && token.count <= maxTokenSize ? $0 : nil
        }
        if let cache {
            hash = probed?.hash ?? cache.hash(token)
            if probed?.absent != true {
                cacheOutcome = .hit
                if try verifier.lendCached(token, hash: hash, cache: cache, at: now, holding: hold, body) { return }
            }
            cacheOutcome = .miss
        }
        // The same header memo as the unrouted pipeline: a repeated header is neither decoded nor parsed again.
        let header = try segments.decodeHeaderAndSignature(scratch.headerMemo)
        let headerJSON = segments.header, payload = segments.payload
        let key = try verifier.checkSignature(
            segments.jws, header: header, headerJSON: headerJSON, signature: segments.signature,
            contexts: scratch.contexts)
        var claims = claims
        if verifier.compiled.hasRequirements {
            // The route's claim requirements as the unrouted pipeline checks them: one more read of the claims
            // that records each requirement's top-level claim, instead of a walk per requirement.
            claims = try verifier.compiled.readAndCheckRequirements(payload, at: now, clock: verifier.clock)
        } else {
            try verifier.compiled.check(claims, in: payload, now: now ?? verifier.clock.now())
        }
        let verified = VerifiedToken(
            algorithm: header.alg, key: key, header: headerJSON, claimsJSON: payload, claims: claims,
            kidSpan: header.kid, typSpan: header.typ)
        // `key` (returned retained by the key selection) outlives the callback: the token holds it unowned.
        withExtendedLifetime(key) {
            cache?.insert(token, hash: hash, policy: verifier.policyFingerprint, verified: verified)
            body(verified)
        }
    }

    /// `claims` with route `r`'s required claims marked as that route's policy numbers them.
    @inline(__always)
    private func requiredClaims(
        of r: Int, _ claims: RegisteredClaims, _ payload: UnsafeRawBufferPointer
    ) throws(JWTError) -> RegisteredClaims {
        let map = requiredMaps[r]
        guard !map.isEmpty else { return claims }
        guard readsAllRequired else {
            let compiled = routes[r].compiled
            return try RegisteredClaims.read(
                payload, required: compiled.requiredKeys, requiredNames: compiled.requiredClaims)
        }
        var mine = claims
        mine.requiredPresent = 0
        for (i, at) in map.enumerated() where claims.requiredPresent & (1 << UInt64(at)) != 0 {
            mine.requiredPresent |= 1 << UInt64(i)
        }
        return mine
    }

    /// The index of the route for the token's `iss` (`claims` read from `payload`).
    private func route(_ claims: RegisteredClaims, _ payload: UnsafeRawBufferPointer) throws(JWTError) -> Int {
        guard let iss = claims.iss else {
            if let fallback { return fallback }
            throw JWTError(.missingClaim, "iss is required to choose the issuer's keys")
        }
        let bytes = payload.baseAddress!.assumingMemoryBound(to: UInt8.self)
        if !iss.escaped, !hasTemplates {
            return try match(UnsafeRawBufferPointer(start: bytes + iss.start, count: iss.count), tid: nil)
        }
        // Decoded on the stack: escapes resolved, then the `tid` claim for templates.
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: IssuerPattern.maxTemplatedIssuerLength) {
            (issBuffer) throws(JWTError) -> Int in
            guard let n = JSONString.decode(iss, in: bytes, into: issBuffer.baseAddress!, capacity: issBuffer.count)
            else {
                if let fallback { return fallback }
                throw JWTError(.unknownIssuer, "iss is not a configured issuer")
            }
            let decodedIss = UnsafeRawBufferPointer(start: issBuffer.baseAddress, count: n)
            guard hasTemplates else { return try match(decodedIss, tid: nil) }
            let tid = try Self.tenant(in: payload)
            return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: IssuerPattern.maxTenantLength) {
                (tidBuffer) throws(JWTError) -> Int in
                guard let tid,
                    let m = JSONString.decode(tid, in: bytes, into: tidBuffer.baseAddress!, capacity: tidBuffer.count)
                else {
                    return try match(decodedIss, tid: nil)
                }
                return try match(decodedIss, tid: UnsafeRawBufferPointer(start: tidBuffer.baseAddress, count: m))
            }
        }
    }

    /// Exact issuers through the index, then templates in order (exact ones come first in `patterns`).
    private func match(_ iss: UnsafeRawBufferPointer, tid: UnsafeRawBufferPointer?) throws(JWTError) -> Int {
        if let r = index.route(iss, patterns: patterns) { return r }
        for i in patterns.indices where patterns[i].isTemplate && patterns[i].matches(iss: iss, tid: tid) { return i }
        if let fallback { return fallback }
        throw JWTError(.unknownIssuer, "iss is not a configured issuer")
    }

    /// The `tid` claim's span, if it is a string (the claims were validated already).
    private static func tenant(in payload: UnsafeRawBufferPointer) throws(JWTError) -> JSONSpan? {
        let bytes = payload.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var found: JSONSpan?
        var parser = JSONParser(payload)
        try parser.forEachTopLevelMember { (name, value) throws(JWTError) in
            if value.kind == .string, JSONString.equals(name, in: bytes, "tid") { found = value }
        }
        return found
    }
}
