/// Encrypted tokens (JWE, RFC 7516) through the one verification pipeline: NGINX Plus's `auth_jwt_type nested`
/// (a JWS inside a JWE: decrypt, then verify the inner token exactly as a signed one, cache and policy
/// included) and `auth_jwt_type encrypted` (the claims themselves encrypted: decrypt, then the claims step of
/// the same pipeline). Decryption keys come in a `JWEDecryptor`, never from the verifier's `JWKSet`.
extension JWTVerifier {
    /// Decrypts a nested JWT and verifies the JWS inside it; `now` as in `verify(_:at:)`.
    public func verifyNested(_ token: String, decryptor: JWEDecryptor, at now: Int64? = nil) throws(JWTError)
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
    public func checkNested(_ token: UnsafeRawBufferPointer, decryptor: JWEDecryptor, at now: Int64? = nil)
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
    public func verifyEncrypted(_ token: String, decryptor: JWEDecryptor, at now: Int64? = nil) throws(JWTError)
        -> DecryptedJWT
    {
        try Self.withBytes(token) { (bytes) throws(JWTError) in try verifyEncrypted(bytes, decryptor: decryptor, at: now) }
    }

    public func verifyEncrypted(_ token: UnsafeRawBufferPointer, decryptor: JWEDecryptor, at now: Int64? = nil)
        throws(JWTError) -> DecryptedJWT
    {
        let jwe = try decryptor.decrypt(token)
        guard !jwe.isNestedJWT else {
            throw JWTError(.malformed, "a nested JWT (cty JWT) is verified as nested, not as encrypted-only")
        }
        guard !jwe.plaintext.isEmpty else { throw JWTError(.malformed, "the decrypted claims are empty") }
        let claims = try jwe.plaintext.withUnsafeBytes { payload in
            Result { () throws(JWTError) in
                let read = try readAndCheckClaims(payload, at: now)
                func string(_ span: JSONSpan?) -> String? {
                    span.map { JSONString.string($0, in: payload.baseAddress!.assumingMemoryBound(to: UInt8.self)) }
                }
                return (string(read.iss), string(read.sub), read.exp)
            }
        }.get()
        return DecryptedJWT(
            keyManagement: jwe.keyManagement, contentEncryption: jwe.contentEncryption, key: jwe.key,
            header: jwe.header, claimsJSON: jwe.plaintext, issuer: claims.0, subject: claims.1, expiresAt: claims.2,
            claims: (try? JSONValue.parse(jwe.plaintext)) ?? .object([]))
    }
}

extension JWEDecryptor {
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
