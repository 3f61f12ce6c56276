/// A token that passed every check, as a view into memory the verifier lends
/// for the duration of a callback: valid only inside that callback.
public struct VerifiedToken {
    public let algorithm: JWTAlgorithm
    /// Unowned like the buffers: whoever lends the token keeps the key alive for the callback
    /// (the cache entry on a hit, the verifier's key selection otherwise), so lending it
    /// retains and releases nothing; reading it gives a strong reference as usual.
    // Safety: a VerifiedToken never outlives the callback it is lent to (see above), and every
    // lender holds a strong reference to `key` until the callback returns.
    public unowned(unsafe) let key: VerificationKey
    /// The decoded protected header JSON.
    public let header: UnsafeRawBufferPointer
    /// The decoded claims JSON, exactly as signed.
    public let claimsJSON: UnsafeRawBufferPointer
    /// Where the registered claims sit in `claimsJSON` (for the CLI, benchmarks and the C library).
    @_spi(Internals) public let claims: RegisteredClaims
    /// Where `kid` and `typ` sit in `header` (for the C library, which exports them without parsing again).
    @_spi(Internals) public let kidSpan: JSONSpan?
    @_spi(Internals) public let typSpan: JSONSpan?

    private func string(_ span: JSONSpan?, in buffer: UnsafeRawBufferPointer) -> String? {
        span.map { JSONString.string($0, in: buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)) }
    }

    public var kid: String? { string(kidSpan, in: header) }
    public var issuer: String? { string(claims.iss, in: claimsJSON) }
    public var subject: String? { string(claims.sub, in: claimsJSON) }
    public var nonce: String? { string(claims.nonce, in: claimsJSON) }
    public var authorizedParty: String? { string(claims.azp, in: claimsJSON) }
    public var jwtID: String? { string(claims.jti, in: claimsJSON) }
    /// `exp`, `nbf`, `iat` as NumericDate seconds (fractions allowed by RFC 7519 §2).
    public var expiresAt: Double? { claims.exp }
    public var notBefore: Double? { claims.nbf }
    public var issuedAt: Double? { claims.iat }

    public var audiences: [String] {
        guard let aud = claims.aud else { return [] }
        var out: [String] = []
        try? RegisteredClaims.forEachAudience(aud, in: claimsJSON) { (element) throws(JWTError) in
            out.append(string(element, in: claimsJSON)!)
        }
        return out
    }

    /// An owning copy that outlives the callback.
    public func copy() -> VerifiedJWT {
        VerifiedJWT(
            algorithm: algorithm, kid: kid, key: key,
            header: Array(header), claimsJSON: Array(claimsJSON),
            issuer: issuer, subject: subject, audiences: audiences,
            expiresAt: claims.exp, notBefore: claims.nbf, issuedAt: claims.iat,
            nonce: nonce, authorizedParty: authorizedParty, jwtID: jwtID)
    }
}
