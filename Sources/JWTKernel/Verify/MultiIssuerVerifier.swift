/// Verifies tokens of several issuers, each with its own keys (from a
/// `KeyStore`) and its own `ClaimsPolicy`.
///
/// A token is routed by its `iss`, read strictly (the whole claims set is
/// validated, duplicates refused) before the signature is checked; the
/// signature is then checked only with that issuer's keys, and `iss` is
/// checked again by that issuer's policy. A token whose `iss` is not
/// configured is `unknown_issuer`; one whose issuer never had keys loaded is
/// `keys_unavailable`. Immutable and thread-safe, like `JWTVerifier`.
public final class MultiIssuerVerifier: Sendable {
    public let store: KeyStore
    public let issuers: [IssuerConfiguration]
    public let maxTokenSize: Int
    /// One verifier per issuer, reading that issuer's keys from the store.
    private let routes: [JWTVerifier]
    private let routeIDs: [IssuerID]

    public init(store: KeyStore, issuers: [IssuerConfiguration], clock: any JWTClock = SystemClock(),
                maxTokenSize: Int = JWTVerifier.defaultMaxTokenSize, cache: VerifiedTokenCache? = nil) {
        self.store = store
        self.issuers = issuers
        self.maxTokenSize = maxTokenSize
        self.routeIDs = issuers.map { IssuerID($0.issuer) }
        self.routes = issuers.map { config in
            var policy = config.policy
            if policy.issuers.isEmpty { policy.issuers = [config.issuer] }
            return JWTVerifier(resolution: .store(store, IssuerID(config.issuer)), keys: JWKSet(keys: []),
                               policy: policy, clock: clock, maxTokenSize: maxTokenSize, cache: cache)
        }
    }

    /// The verifier that handles tokens of `issuer`, if configured.
    public func verifier(forIssuer issuer: String) -> JWTVerifier? {
        let id = IssuerID(issuer)
        return routeIDs.firstIndex(of: id).map { routes[$0] }
    }

    /// Verifies a JWT and returns an owning copy of the result.
    public func verify(_ token: String) throws(JWTError) -> VerifiedJWT {
        try JWTVerifier.withBytes(token) { (bytes) throws(JWTError) in try verify(bytes) { $0.copy() } }
    }

    /// Zero-copy form: the `VerifiedToken` is valid only inside `body`.
    public func verify<R>(_ token: UnsafeRawBufferPointer, _ body: (VerifiedToken) -> R) throws(JWTError) -> R {
        try routes[route(token)].verify(token, body)
    }

    /// Verifies a JWT and reports only the outcome.
    public func check(_ token: UnsafeRawBufferPointer) -> JWTError? {
        do {
            try verify(token) { _ in () }
            return nil
        } catch {
            return error
        }
    }

    public func check(_ token: String) -> JWTError? {
        var token = token
        return token.withUTF8 { check(UnsafeRawBufferPointer($0)) }
    }

    /// The index of the issuer named by the token's `iss`. The payload is decoded
    /// into per-thread scratch and released before the issuer's verifier runs.
    private func route(_ token: UnsafeRawBufferPointer) throws(JWTError) -> Int {
        guard token.count <= maxTokenSize else { throw JWTError(.tooLarge, "token exceeds the size limit") }
        let jws = try CompactJWS(token)
        guard let payloadCount = Base64URL.decodedCount(jws.payload.count) else {
            throw JWTError(.malformed, "segment length is not valid base64url")
        }
        return try ThreadScratch.withBuffer(count: payloadCount) { (scratch, _) throws(JWTError) -> Int in
            guard Base64URL.decode(jws.payload, into: scratch) != nil else {
                throw JWTError(.malformed, "segment is not canonical base64url")
            }
            let payload = UnsafeRawBufferPointer(start: scratch, count: payloadCount)
            let claims = try RegisteredClaims.read(payload, required: [])
            guard let iss = claims.iss else { throw JWTError(.missingClaim, "iss is required to choose the issuer's keys") }
            let bytes = scratch.assumingMemoryBound(to: UInt8.self)
            for i in routeIDs.indices {
                let hit = routeIDs[i].bytes.withUnsafeBytes { JSONString.equals(iss, in: bytes, $0) }
                if hit { return i }
            }
            throw JWTError(.unknownIssuer, "iss is not a configured issuer")
        }
    }
}
