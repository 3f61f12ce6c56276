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
public final class MultiIssuerVerifier: Sendable {
    public let store: KeyStore
    public let issuers: [IssuerConfiguration]
    public let maxTokenSize: Int
    /// One verifier per issuer, reading its key set from the store.
    private let routes: [JWTVerifier]
    private let patterns: [IssuerPattern]
    private let hasTemplates: Bool

    public init(
        store: KeyStore, issuers: [IssuerConfiguration], clock: any JWTClock = SystemClock(),
        maxTokenSize: Int = JWTVerifier.defaultMaxTokenSize, cache: VerifiedTokenCache? = nil
    ) {
        self.store = store
        self.issuers = issuers
        self.maxTokenSize = maxTokenSize
        // Exact issuers are tried before templates, whatever the configuration order.
        let ordered = issuers.filter { !$0.isTemplate } + issuers.filter(\.isTemplate)
        self.patterns = ordered.map { IssuerPattern($0.issuer) }
        self.hasTemplates = patterns.contains(where: \.isTemplate)
        self.routes = ordered.map { config in
            var policy = config.policy
            if policy.issuers.isEmpty, !config.isTemplate { policy.issuers = [config.issuer] }
            return JWTVerifier(
                resolution: .store(store, IssuerID(config.keyIssuer)), keys: JWKSet(keys: []),
                policy: policy, clock: clock, maxTokenSize: maxTokenSize, cache: cache)
        }
    }

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

    /// The index of the route for the token's `iss`. The payload is decoded into
    /// per-thread scratch, released before the issuer's verifier runs.
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
            let claims = try RegisteredClaims.read(payload, required: [], requiredNames: [])
            guard let iss = claims.iss else {
                throw JWTError(.missingClaim, "iss is required to choose the issuer's keys")
            }
            let bytes = scratch.assumingMemoryBound(to: UInt8.self)
            if !iss.escaped, !hasTemplates {
                return try match(UnsafeRawBufferPointer(start: bytes + iss.start, count: iss.count), tid: nil)
            }
            // Decoded on the stack: escapes resolved, then the `tid` claim for templates.
            return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: IssuerPattern.maxTemplatedIssuerLength) {
                (issBuffer) throws(JWTError) -> Int in
                guard let n = JSONString.decode(iss, in: bytes, into: issBuffer.baseAddress!, capacity: issBuffer.count)
                else {
                    throw JWTError(.unknownIssuer, "iss is not a configured issuer")
                }
                let decodedIss = UnsafeRawBufferPointer(start: issBuffer.baseAddress, count: n)
                guard hasTemplates else { return try match(decodedIss, tid: nil) }
                let tid = try Self.tenant(in: payload)
                return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: IssuerPattern.maxTenantLength) {
                    (tidBuffer) throws(JWTError) -> Int in
                    guard let tid,
                        let m = JSONString.decode(
                            tid, in: bytes, into: tidBuffer.baseAddress!, capacity: tidBuffer.count)
                    else {
                        return try match(decodedIss, tid: nil)
                    }
                    return try match(decodedIss, tid: UnsafeRawBufferPointer(start: tidBuffer.baseAddress, count: m))
                }
            }
        }
    }

    private func match(_ iss: UnsafeRawBufferPointer, tid: UnsafeRawBufferPointer?) throws(JWTError) -> Int {
        for i in patterns.indices where patterns[i].matches(iss: iss, tid: tid) { return i }
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
