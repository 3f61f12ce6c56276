/// A token that passed every check, as a view into memory the verifier lends
/// for the duration of a callback: valid only inside that callback.
public struct VerifiedToken {
    public let algorithm: JWTAlgorithm
    public let key: VerificationKey
    /// The decoded protected header JSON.
    public let header: UnsafeRawBufferPointer
    /// The decoded claims JSON, exactly as signed.
    public let claimsJSON: UnsafeRawBufferPointer
    public let claims: RegisteredClaims
    let kidSpan: JSONSpan?

    private func string(_ span: JSONSpan?, in buffer: UnsafeRawBufferPointer) -> String? {
        span.map { JSONString.string($0, in: buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)) }
    }

    public var kid: String? { string(kidSpan, in: header) }
    public var issuer: String? { string(claims.iss, in: claimsJSON) }
    public var subject: String? { string(claims.sub, in: claimsJSON) }
    public var nonce: String? { string(claims.nonce, in: claimsJSON) }
    public var authorizedParty: String? { string(claims.azp, in: claimsJSON) }

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
            nonce: nonce, authorizedParty: authorizedParty)
    }
}

/// A verified token that owns its data.
public struct VerifiedJWT: Sendable {
    public let algorithm: JWTAlgorithm
    public let kid: String?
    public let key: VerificationKey
    public let header: [UInt8]
    /// The claims JSON exactly as signed; `claims` parses it for arbitrary members.
    public let claimsJSON: [UInt8]
    public let issuer: String?
    public let subject: String?
    public let audiences: [String]
    public let expiresAt: Double?
    public let notBefore: Double?
    public let issuedAt: Double?
    public let nonce: String?
    public let authorizedParty: String?

    /// All claims as a JSON tree (they were validated strictly before).
    public var claims: JSONValue { (try? JSONValue.parse(claimsJSON)) ?? .object([]) }

    public subscript(claim name: String) -> JSONValue? { claims[name] }
}

/// A verified JWS whose payload need not be JSON (RFC 7515 without RFC 7519).
public struct VerifiedJWS: Sendable {
    public let algorithm: JWTAlgorithm
    public let kid: String?
    public let key: VerificationKey
    public let header: [UInt8]
    public let payload: [UInt8]
}
