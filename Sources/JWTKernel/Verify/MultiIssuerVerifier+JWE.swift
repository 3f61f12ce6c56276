/// Nested JWTs (a JWS inside a JWE) routed by issuer: decrypted with the `JWEDecryptor`, then the inner JWS
/// through `verifyLending`, the routed path every signed token takes.
extension MultiIssuerVerifier {
    /// Decrypts a nested JWT and verifies the JWS inside it; `now` as in `verify(_:at:)`.
    public func verifyNested(
        _ token: String, decryptor: JWEDecryptor, at now: Int64? = nil
    ) throws(JWTError)
        -> VerifiedJWT
    {
        try JWTVerifier.withBytes(token) { (bytes) throws(JWTError) in
            var result: VerifiedJWT? = nil
            var outcome = CacheOutcome.notUsed
            try verifyNestedLending(bytes, decryptor: decryptor, at: now, cacheOutcome: &outcome) { result = $0.copy() }
            return result!
        }
    }

    @_spi(Internals)
    public func verifyNestedLending(
        _ token: UnsafeRawBufferPointer, decryptor: JWEDecryptor, at now: Int64?,
        cacheOutcome: inout CacheOutcome, _ body: (VerifiedToken) -> Void
    ) throws(JWTError) {
        try decryptor.withNestedJWS(token) { (inner) throws(JWTError) in
            try verifyLending(inner, at: now, cacheOutcome: &cacheOutcome, body)
        }
    }
}

extension MultiIssuerVerifier {
    /// Encrypted-only JWTs routed by the decrypted claims' `iss`: the route's policy judges them, through
    /// `JWTVerifier.readAndCheckClaims` as in `JWTVerifier.verifyEncryptedLending`.
    @_spi(Internals)
    public func verifyEncryptedLending(
        _ token: UnsafeRawBufferPointer, decryptor: JWEDecryptor, at now: Int64?, _ body: (DecryptedToken) -> Void
    ) throws(JWTError) {
        try decryptor.withEncryptedClaims(token) { (jwe, header, payload) throws(JWTError) in
            let verifier = try route(ofClaims: payload)
            let claims = try verifier.readAndCheckClaims(payload, at: now)
            body(DecryptedToken(jwe: jwe, header: header, claimsJSON: payload, claims: claims))
        }
    }
}
