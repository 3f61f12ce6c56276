/// Encrypted tokens (JWE, RFC 7516) through the one verification pipeline: NGINX Plus's `auth_jwt_type nested`
/// (a JWS inside a JWE: decrypt, then verify the inner token exactly as a signed one, cache and policy
/// included) and `auth_jwt_type encrypted` (the claims themselves encrypted: decrypt, then the claims step of
/// the same pipeline). Decryption keys come in a `JWEDecryptor`, never from the verifier's `JWKSet`.
extension JWTVerifier {
    /// Decrypts a nested JWT and verifies the JWS inside it; `now` as in `verify(_:at:)`.
    public func verifyNested(
        _ token: String, decryptor: JWEDecryptor, at now: Int64? = nil
    ) throws(JWTError)
        -> VerifiedJWT
    {
        try Self.withBytes(token) { (bytes) throws(JWTError) in
            var result: VerifiedJWT? = nil
            try verifyNestedLending(bytes, decryptor: decryptor, at: now) { result = $0.copy() }
            return result!
        }
    }

    /// Zero-copy form of `verifyNested(_:decryptor:at:)`: `body` gets the inner token's view, valid only inside it.
    public func verifyNested<R>(
        _ token: UnsafeRawBufferPointer, decryptor: JWEDecryptor, at now: Int64? = nil, _ body: (VerifiedToken) -> R
    ) throws(JWTError) -> R {
        var result: R? = nil
        try verifyNestedLending(token, decryptor: decryptor, at: now) { result = body($0) }
        return result!
    }

    /// Only the outcome of `verifyNested` (what a gateway's check needs).
    public func checkNested(
        _ token: UnsafeRawBufferPointer, decryptor: JWEDecryptor, at now: Int64? = nil
    )
        -> JWTError?
    {
        do {
            try verifyNestedLending(token, decryptor: decryptor, at: now) { _ in }
            return nil
        } catch {
            return error
        }
    }

    /// The one nested path: `JWEDecryptor.withNestedJWS` then this verifier's `verifyLending` (cache, header,
    /// key, signature, claims, policy), so nothing of the signed path is copied.
    @_spi(Internals)
    public func verifyNestedLending(
        _ token: UnsafeRawBufferPointer, decryptor: JWEDecryptor, at now: Int64?,
        cacheOutcome: inout CacheOutcome, _ body: (VerifiedToken) -> Void
    ) throws(JWTError) {
        try decryptor.withNestedJWS(token) { (inner) throws(JWTError) in
            try verifyLending(inner, at: now, cacheOutcome: &cacheOutcome, body)
        }
    }

    func verifyNestedLending(
        _ token: UnsafeRawBufferPointer, decryptor: JWEDecryptor, at now: Int64?, _ body: (VerifiedToken) -> Void
    ) throws(JWTError) {
        var outcome = CacheOutcome.notUsed
        try verifyNestedLending(token, decryptor: decryptor, at: now, cacheOutcome: &outcome, body)
    }

    /// Decrypts an encrypted-only JWT and checks its claims with this verifier's policy (times, issuer,
    /// audience, nonce, required claims, claim requirements); the policy's algorithms and `typ` concern
    /// signatures and do not apply. A nested token (`cty` JWT) is refused here: its claims are signed, and
    /// only `verifyNested` checks that signature.
    public func verifyEncrypted(
        _ token: String, decryptor: JWEDecryptor, at now: Int64? = nil
    ) throws(JWTError)
        -> DecryptedJWT
    {
        try Self.withBytes(token) { (bytes) throws(JWTError) in
            try verifyEncrypted(bytes, decryptor: decryptor, at: now)
        }
    }

    public func verifyEncrypted(
        _ token: UnsafeRawBufferPointer, decryptor: JWEDecryptor, at now: Int64? = nil
    )
        throws(JWTError) -> DecryptedJWT
    {
        var result: DecryptedJWT? = nil
        try verifyEncryptedLending(token, decryptor: decryptor, at: now) { t in
            func string(_ span: JSONSpan?) -> String? {
                span.map { JSONString.string($0, in: t.claimsJSON.baseAddress!.assumingMemoryBound(to: UInt8.self)) }
            }
            result = DecryptedJWT(
                keyManagement: t.keyManagement, contentEncryption: t.contentEncryption, key: t.key,
                header: Array(t.header), claimsJSON: Array(t.claimsJSON), issuer: string(t.claims.iss),
                subject: string(t.claims.sub), expiresAt: t.claims.exp,
                claims: (try? JSONValue.parse(t.claimsJSON)) ?? .object([]))
        }
        return result!
    }

    /// The one encrypted-only path: decrypt, then `readAndCheckClaims` (the signed pipeline's claims step) with
    /// this verifier's policy; `body` gets a view valid only inside it (the C library exports from it).
    @_spi(Internals)
    public func verifyEncryptedLending(
        _ token: UnsafeRawBufferPointer, decryptor: JWEDecryptor, at now: Int64?, _ body: (DecryptedToken) -> Void
    ) throws(JWTError) {
        try decryptor.withEncryptedClaims(token) { (jwe, header, payload) throws(JWTError) in
            let claims = try readAndCheckClaims(payload, at: now)
            body(DecryptedToken(jwe: jwe, header: header, claimsJSON: payload, claims: claims))
        }
    }
}

/// An encrypted-only token whose claims passed the policy, as a view lent to a callback (the C library's export).
@_spi(Internals)
public struct DecryptedToken {
    public let keyManagement: KeyManagementAlgorithm
    public let contentEncryption: ContentEncryption
    public let key: DecryptionKey
    /// The decoded JWE protected header JSON.
    public let header: UnsafeRawBufferPointer
    public let claimsJSON: UnsafeRawBufferPointer
    public let claims: RegisteredClaims

    init(
        jwe: DecryptedJWE, header: UnsafeRawBufferPointer, claimsJSON: UnsafeRawBufferPointer, claims: RegisteredClaims
    ) {
        keyManagement = jwe.keyManagement
        contentEncryption = jwe.contentEncryption
        key = jwe.key
        self.header = header
        self.claimsJSON = claimsJSON
        self.claims = claims
    }
}

extension JWEDecryptor {
    /// Decrypts an encrypted-only JWT and lends its header and claims (non-empty) to `body`. Refused: a nested
    /// token (`cty` JWT), whose claims are signed and checked only by the nested path.
    func withEncryptedClaims(
        _ token: UnsafeRawBufferPointer,
        _ body: (DecryptedJWE, UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws(JWTError) -> Void
    ) throws(JWTError) {
        var jwe = try decrypt(token)
        defer { wipe(&jwe.plaintextStorage) }
        guard !jwe.isNestedJWT else {
            throw JWTError(.malformed, "a nested JWT (cty JWT) is verified as nested, not as encrypted-only")
        }
        guard !jwe.plaintext.isEmpty else { throw JWTError(.malformed, "the decrypted claims are empty") }
        try jwe.header.withUnsafeBytes { header in
            jwe.plaintext.withUnsafeBytes { payload in
                Result { () throws(JWTError) in try body(jwe, header, payload) }
            }
        }.get()
    }

    /// Decrypts a nested JWT and lends the inner JWS to `body`. Refused: a JWE whose `cty` is not "JWT"
    /// (RFC 7519 §5.2 requires it of a nested JWT) and a JWE inside a JWE (a second decryption is never
    /// nested: the inner token must be signed).
    func withNestedJWS(
        _ token: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws(JWTError) -> Void
    ) throws(JWTError) {
        var jwe = try decrypt(token)
        defer { wipe(&jwe.plaintextStorage) }
        guard jwe.isNestedJWT else {
            throw JWTError(.malformed, "a nested JWT needs cty \"JWT\" in its JWE header (RFC 7519 section 5.2)")
        }
        guard !CompactJWE.hasFiveSegments(jwe.plaintext) else {
            throw JWTError(.malformed, "a JWE inside a JWE is refused: the inner token must be a signed JWT")
        }
        try jwe.plaintext.withUnsafeBytes { inner in Result { () throws(JWTError) in try body(inner) } }.get()
    }
}
