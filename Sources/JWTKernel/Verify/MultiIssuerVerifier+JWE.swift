/// Encrypted-only JWTs routed by the decrypted claims' `iss` (the forms every verifier shares, nested tokens
/// included, are in `TokenVerifier+JWE.swift`).
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
