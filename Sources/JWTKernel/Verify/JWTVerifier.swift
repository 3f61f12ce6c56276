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
    let compiled: CompiledPolicy
    let policyFingerprint: UInt64

    public static let defaultMaxTokenSize = 16 * 1024

    public init(keys: JWKSet, policy: ClaimsPolicy = ClaimsPolicy(), clock: any JWTClock = SystemClock(),
                maxTokenSize: Int = JWTVerifier.defaultMaxTokenSize, cache: VerifiedTokenCache? = nil) {
        self.keys = keys
        self.policy = policy
        self.clock = clock
        self.maxTokenSize = maxTokenSize
        self.cache = cache
        self.compiled = CompiledPolicy(policy)
        self.policyFingerprint = compiled.fingerprint
    }

    /// The same policy, clock and cache with a new key set (key rotation).
    /// Cached tokens verified by keys that are no longer in `keys` stop hitting.
    public func replacingKeys(_ keys: JWKSet) -> JWTVerifier {
        JWTVerifier(keys: keys, policy: policy, clock: clock, maxTokenSize: maxTokenSize, cache: cache)
    }

    // MARK: JWT

    /// Verifies a JWT and returns an owning copy of the result.
    public func verify(_ token: String) throws(JWTError) -> VerifiedJWT {
        try Self.withBytes(token) { (bytes) throws(JWTError) in try verify(bytes) { $0.copy() } }
    }

    /// A String's UTF-8 in place (native strings are not copied), keeping the typed error.
    static func withBytes<R>(_ token: String, _ body: (UnsafeRawBufferPointer) throws(JWTError) -> R) throws(JWTError) -> R {
        var token = token
        return try token.withUTF8 { utf8 in Result { () throws(JWTError) in try body(UnsafeRawBufferPointer(utf8)) } }.get()
    }

    /// Verifies a JWT given as bytes and lends the result to `body` without
    /// copying or allocating; the `VerifiedToken` is valid only inside `body`.
    public func verify<R>(_ token: UnsafeRawBufferPointer, _ body: (VerifiedToken) -> R) throws(JWTError) -> R {
        guard let cache, token.count <= cache.configuration.maxTokenSize, token.count <= maxTokenSize else {
            return try verifyInFull(token, body)
        }
        let hash = cache.hash(token)
        if let hit = try verifyCached(token, hash: hash, cache: cache, body) { return hit }
        return try verifyInFull(token) { verified in
            cache.insert(token, hash: hash, policy: policyFingerprint, verified: verified)
            return body(verified)
        }
    }

    /// A cache hit, re-checked: the full token must match, the key must still be
    /// trusted and the time claims must still hold.
    private func verifyCached<R>(_ token: UnsafeRawBufferPointer, hash: VerifiedTokenCache.Hash, cache: VerifiedTokenCache,
                                 _ body: (VerifiedToken) -> R) throws(JWTError) -> R? {
        guard let entry = cache.lookup(hash: hash, policy: policyFingerprint), entry.holds(token) else { return nil }
        let hit = entry.result
        guard keys.contains(hit.key) else {
            cache.remove(token, hash: hash)
            return nil
        }
        do throws(JWTError) {
            try compiled.checkTimes(hit.claims, now: clock.now())
        } catch {
            cache.remove(token, hash: hash)
            throw error
        }
        // `entry` holds the immutable bytes for the duration of `body`.
        return entry.bytes.withUnsafeBytes { stored in
            let header = UnsafeRawBufferPointer(rebasing: stored[token.count..<token.count + hit.headerCount])
            let claims = UnsafeRawBufferPointer(rebasing: stored[(token.count + hit.headerCount)..<stored.count])
            return body(VerifiedToken(algorithm: hit.algorithm, key: hit.key, header: header, claimsJSON: claims,
                                      claims: hit.claims, kidSpan: hit.kidSpan))
        }
    }

    private func verifyInFull<R>(_ token: UnsafeRawBufferPointer, _ body: (VerifiedToken) -> R) throws(JWTError) -> R {
        try withVerifiedSignature(token) { (parts) throws(JWTError) -> R in
            let claims = try RegisteredClaims.read(parts.payload, required: compiled.requiredClaims)
            try compiled.check(claims, in: parts.payload, now: clock.now())
            return body(VerifiedToken(algorithm: parts.header.alg, key: parts.key, header: parts.headerJSON,
                                      claimsJSON: parts.payload, claims: claims, kidSpan: parts.header.kid))
        }
    }

    /// Verifies a JWT and reports only the outcome (what a gateway's check needs).
    public func check(_ token: UnsafeRawBufferPointer) -> JWTError? {
        do {
            try verify(token) { _ in () }
            return nil
        } catch {
            return error
        }
    }

    // MARK: JWS (payload not necessarily JSON)

    /// Verifies the signature only: header, algorithm, key and signature.
    /// Claims are not read, so no time or audience checks happen here.
    public func verifyJWS(_ token: String) throws(JWTError) -> VerifiedJWS {
        try Self.withBytes(token) { (bytes) throws(JWTError) -> VerifiedJWS in
            try withVerifiedSignature(bytes) { (parts) throws(JWTError) -> VerifiedJWS in
                let kid = parts.header.kid.map {
                    JSONString.string($0, in: parts.headerJSON.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
                return VerifiedJWS(algorithm: parts.header.alg, kid: kid, key: parts.key,
                                   header: Array(parts.headerJSON), payload: Array(parts.payload))
            }
        }
    }

    struct SignedParts {
        let header: JOSEHeader
        let headerJSON: UnsafeRawBufferPointer
        let payload: UnsafeRawBufferPointer
        let key: VerificationKey
    }

    /// Everything up to and including the signature, with decoded segments in scratch memory.
    func withVerifiedSignature<R>(_ token: UnsafeRawBufferPointer, _ body: (SignedParts) throws(JWTError) -> R) throws(JWTError) -> R {
        guard token.count <= maxTokenSize else { throw JWTError(.tooLarge, "token exceeds the size limit") }
        let jws = try CompactJWS(token)
        guard let headerCount = Base64URL.decodedCount(jws.header.count),
              let payloadCount = Base64URL.decodedCount(jws.payload.count),
              let signatureCount = Base64URL.decodedCount(jws.signature.count)
        else { throw JWTError(.malformed, "segment length is not valid base64url") }

        return try ThreadScratch.withBuffer(count: headerCount + payloadCount + signatureCount) { (scratch, contexts) throws(JWTError) -> R in
            guard Base64URL.decode(jws.header, into: scratch) != nil,
                  Base64URL.decode(jws.payload, into: scratch + headerCount) != nil,
                  Base64URL.decode(jws.signature, into: scratch + headerCount + payloadCount) != nil
            else { throw JWTError(.malformed, "segment is not canonical base64url") }
            let headerJSON = UnsafeRawBufferPointer(start: scratch, count: headerCount)
            let payload = UnsafeRawBufferPointer(start: scratch + headerCount, count: payloadCount)
            let signature = UnsafeRawBufferPointer(start: scratch + headerCount + payloadCount, count: signatureCount)

            let header = try JOSEHeader.parse(headerJSON)
            guard compiled.algorithms.contains(header.alg) else { throw JWTError(.algNotAllowed, "alg is not allowed by policy") }
            try compiled.checkType(header.typ, in: headerJSON)
            let key = try withKid(header, headerJSON) { (kid) throws(JWTError) in try keys.select(kid: kid, alg: header.alg) }
            guard SignatureCheck.verify(header.alg, key: key, signingInput: jws.signingInput,
                                        signature: signature, contexts: contexts) else {
                throw JWTError(.badSignature, "signature does not verify")
            }
            return try body(SignedParts(header: header, headerJSON: headerJSON, payload: payload, key: key))
        }
    }

    /// The decoded `kid` bytes (escapes resolved) for key lookup, on the stack.
    private func withKid<R>(_ header: JOSEHeader, _ json: UnsafeRawBufferPointer,
                            _ body: (UnsafeRawBufferPointer?) throws(JWTError) -> R) throws(JWTError) -> R {
        guard let span = header.kid else { return try body(nil) }
        let bytes = json.baseAddress!.assumingMemoryBound(to: UInt8.self)
        if !span.escaped { return try body(UnsafeRawBufferPointer(start: bytes + span.start, count: span.count)) }
        // An escaped kid decodes to at most its escaped length.
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: span.count) { (buf) throws(JWTError) -> R in
            let n = JSONString.decode(span, in: bytes, into: buf.baseAddress!, capacity: span.count)!
            return try body(UnsafeRawBufferPointer(start: buf.baseAddress, count: n))
        }
    }
}

extension JWTVerifier {
    /// String form of `check(_:)`.
    public func check(_ token: String) -> JWTError? {
        var token = token
        return token.withUTF8 { check(UnsafeRawBufferPointer($0)) }
    }
}
