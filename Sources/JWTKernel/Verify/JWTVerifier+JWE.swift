/// A `JWTVerifier`'s encrypted-only step and the views the JWE paths lend (the forms every verifier shares are in
/// `TokenVerifier+JWE.swift`).
extension JWTVerifier {
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
    /// An owning copy that outlives the callback.
    public func copy() -> DecryptedJWT {
        func string(_ span: JSONSpan?) -> String? {
            span.map { JSONString.string($0, in: claimsJSON.baseAddress!.assumingMemoryBound(to: UInt8.self)) }
        }
        return DecryptedJWT(
            keyManagement: keyManagement, contentEncryption: contentEncryption, key: key, header: Array(header),
            claimsJSON: Array(claimsJSON), issuer: string(claims.iss), subject: string(claims.sub),
            expiresAt: claims.exp, claims: (try? JSONValue.parse(claimsJSON)) ?? .object([]))
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
