/// Encrypted tokens (JWE, RFC 7516) through the one verification pipeline, for every verifier: NGINX Plus's
/// `auth_jwt_type nested` (a JWS inside a JWE: decrypt, then verify the inner token exactly as a signed one,
/// cache and policy included) and `auth_jwt_type encrypted` (the claims themselves encrypted: decrypt, then the
/// claims step of the same pipeline, `verifyEncryptedLending`, each verifier's own: a `MultiIssuerVerifier`
/// routes by the decrypted `iss` first). Decryption keys come in a `JWEDecryptor`, never from the verifier's keys.
extension TokenVerifier {
    /// The one nested path: `JWEDecryptor.withNestedJWS`, then this verifier's `verifyLending` (cache, header,
    /// key, signature, claims, policy), so nothing of the signed path is copied. `body` also gets the inner
    /// compact JWS as decrypted (NGINX Plus's `$jwt_payload` of a nested token), valid only inside it.
    @_spi(Internals)
    public func verifyNestedLending(
        _ token: UnsafeRawBufferPointer, decryptor: JWEDecryptor, at now: Int64?, cacheOutcome: inout CacheOutcome,
        _ body: (VerifiedToken, _ inner: UnsafeRawBufferPointer) -> Void
    ) throws(JWTError) {
        try decryptor.withNestedJWS(token) { (inner) throws(JWTError) in
            try verifyLending(inner, at: now, cacheOutcome: &cacheOutcome) { body($0, inner) }
        }
    }

    /// `verifyNestedLending` for a caller that needs neither the inner JWS's bytes nor the cache's report.
    @_spi(Internals)
    public func verifyNestedLending(
        _ token: UnsafeRawBufferPointer, decryptor: JWEDecryptor, at now: Int64?,
        cacheOutcome: inout CacheOutcome, _ body: (VerifiedToken) -> Void
    ) throws(JWTError) {
        try verifyNestedLending(token, decryptor: decryptor, at: now, cacheOutcome: &cacheOutcome) { t, _ in body(t) }
    }

    /// Decrypts a nested JWT and verifies the JWS inside it; `now` as in `verify(_:at:)`.
    public func verifyNested(
        _ token: String, decryptor: JWEDecryptor, at now: Int64? = nil
    ) throws(JWTError) -> VerifiedJWT {
        try JWTVerifier.withBytes(token) { (bytes) throws(JWTError) in
            try verifyNested(bytes, decryptor: decryptor, at: now) { $0.copy() }
        }
    }

    /// Zero-copy form of `verifyNested(_:decryptor:at:)`: `body` gets the inner token's view, valid only inside it.
    public func verifyNested<R>(
        _ token: UnsafeRawBufferPointer, decryptor: JWEDecryptor, at now: Int64? = nil, _ body: (VerifiedToken) -> R
    ) throws(JWTError) -> R {
        var result: R? = nil
        var outcome = CacheOutcome.notUsed
        try verifyNestedLending(token, decryptor: decryptor, at: now, cacheOutcome: &outcome) { t, _ in
            result = body(t)
        }
        return result!
    }

    /// Only the outcome of `verifyNested` (what a gateway's check needs).
    public func checkNested(
        _ token: UnsafeRawBufferPointer, decryptor: JWEDecryptor, at now: Int64? = nil
    ) -> JWTError? {
        do {
            try verifyNested(token, decryptor: decryptor, at: now) { _ in }
            return nil
        } catch {
            return error
        }
    }

    /// Decrypts an encrypted-only JWT and checks its claims with the verifier's policy (a routing verifier: the
    /// policy of the route its `iss` names): times, issuer, audience, nonce, required claims, claim
    /// requirements; the policy's algorithms and `typ` concern signatures and do not apply. A nested token
    /// (`cty` JWT) is refused here: its claims are signed, and only `verifyNested` checks that signature.
    public func verifyEncrypted(
        _ token: String, decryptor: JWEDecryptor, at now: Int64? = nil
    ) throws(JWTError) -> DecryptedJWT {
        try JWTVerifier.withBytes(token) { (bytes) throws(JWTError) in
            try verifyEncrypted(bytes, decryptor: decryptor, at: now)
        }
    }

    /// `verifyEncrypted(_:decryptor:at:)` over bytes.
    public func verifyEncrypted(
        _ token: UnsafeRawBufferPointer, decryptor: JWEDecryptor, at now: Int64? = nil
    ) throws(JWTError) -> DecryptedJWT {
        var result: DecryptedJWT? = nil
        try verifyEncryptedLending(token, decryptor: decryptor, at: now) { result = $0.copy() }
        return result!
    }
}
