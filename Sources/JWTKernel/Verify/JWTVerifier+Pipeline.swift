/// The full verification pipeline, in the order docs/ARCHITECTURE.md describes.
extension JWTVerifier {
    /// One pass, no closure between the signature and the claims: the segments are
    /// decoded, the signature checked, the claims read and checked, and `body` called,
    /// all inside the one scratch loan (`DecodedSegments`). `now`: the caller's time (Unix seconds), or
    /// nil for this verifier's clock, read once the claims are read.
    func verifyInFull(
        _ token: UnsafeRawBufferPointer, at now: Int64?, _ body: (VerifiedToken) -> Void
    ) throws(JWTError) {
        try DecodedSegments.with(token, maxTokenSize: maxTokenSize) { (segments, scratch) throws(JWTError) in
            let header = try segments.decodeAllAndParseHeader(scratch.headerMemo)
            let headerJSON = segments.header, payload = segments.payload
            let key = try checkSignature(
                segments.jws, header: header, headerJSON: headerJSON, signature: segments.signature,
                contexts: scratch.contexts)
            let claims = try readAndCheckClaims(payload, at: now)
            // `key` (returned retained by the key selection) outlives the callback: the token holds it unowned.
            withExtendedLifetime(key) {
                body(
                    VerifiedToken(
                        algorithm: header.alg, key: key, header: headerJSON, claimsJSON: payload, claims: claims,
                        kidSpan: header.kid, typSpan: header.typ))
            }
        }
    }

    /// The claims step (9 and 10): read the claims in one strict pass and check them against the policy. Also
    /// the whole check of an encrypted-only JWE's claims (`verifyEncrypted`), so both judge claims alike.
    @inline(__always)
    func readAndCheckClaims(_ payload: UnsafeRawBufferPointer, at now: Int64?) throws(JWTError) -> RegisteredClaims {
        if compiled.hasRequirements {
            return try compiled.readAndCheckRequirements(payload, at: now, clock: clock)
        }
        let claims = try RegisteredClaims.read(
            payload, required: compiled.requiredKeys, requiredNames: compiled.requiredClaims)
        try compiled.check(claims, in: payload, now: now ?? clock.now())
        return claims
    }

    struct SignedParts {
        let header: JOSEHeader
        let headerJSON: UnsafeRawBufferPointer
        let payload: UnsafeRawBufferPointer
        let key: VerificationKey
    }

    /// Everything up to and including the signature, with decoded segments in scratch memory
    /// (the JWS API, whose payload need not be JSON). Not generic (the result goes out through
    /// `body`'s captures): no generic metadata per token.
    func withVerifiedSignature(
        _ token: UnsafeRawBufferPointer, _ body: (SignedParts) throws(JWTError) -> Void
    ) throws(JWTError) {
        try DecodedSegments.with(token, maxTokenSize: maxTokenSize) { (segments, scratch) throws(JWTError) in
            try segments.decodeAll()
            let (header, key) = try checkSignature(
                segments.jws, headerJSON: segments.header, signature: segments.signature, contexts: scratch.contexts)
            try body(SignedParts(header: header, headerJSON: segments.header, payload: segments.payload, key: key))
        }
    }

    /// Header, alg and typ checks, key selection and the signature, over decoded
    /// segments (also MultiIssuerVerifier's, which decodes the token itself to route it).
    func checkSignature(
        _ jws: CompactJWS, headerJSON: UnsafeRawBufferPointer, signature: UnsafeRawBufferPointer,
        contexts: PKeyContextCache
    ) throws(JWTError) -> (JOSEHeader, VerificationKey) {
        let header = try JOSEHeader.parse(headerJSON)
        return (
            header,
            try checkSignature(jws, header: header, headerJSON: headerJSON, signature: signature, contexts: contexts)
        )
    }

    /// `checkSignature` with the header already parsed (from `HeaderMemo` or `JOSEHeader.parse`).
    func checkSignature(
        _ jws: CompactJWS, header: JOSEHeader, headerJSON: UnsafeRawBufferPointer, signature: UnsafeRawBufferPointer,
        contexts: PKeyContextCache
    ) throws(JWTError) -> VerificationKey {
        guard compiled.algorithms.contains(header.alg) else {
            throw JWTError(.algNotAllowed, "alg is not allowed by policy")
        }
        try compiled.checkType(header.typ, in: headerJSON)
        // The signature is checked inside the key selection: a key without `kid` is one of possibly several
        // candidates, and the one that verifies is the key (JWKSet.select).
        return try withKid(header, headerJSON) { (kid) throws(JWTError) in
            try resolution.select(kid: kid, alg: header.alg) { key in
                SignatureCheck.verify(
                    header.alg, key: key, signingInput: jws.signingInput, signature: signature, contexts: contexts)
            }
        }
    }

    /// The decoded `kid` bytes (escapes resolved) for key lookup, on the stack.
    @inline(__always)
    private func withKid<R>(
        _ header: JOSEHeader, _ json: UnsafeRawBufferPointer,
        _ body: (UnsafeRawBufferPointer?) throws(JWTError) -> R
    ) throws(JWTError) -> R {
        guard let span = header.kid else { return try body(nil) }
        let bytes = json.baseAddress!.assumingMemoryBound(to: UInt8.self)
        if !span.escaped { return try body(UnsafeRawBufferPointer(start: bytes + span.start, count: span.count)) }
        // An escaped kid decodes to at most its escaped length.
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: span.count) { (buf) throws(JWTError) -> R in
            let n = JSONString.decode(span, in: bytes, into: buf.baseAddress!, capacity: span.count)!
            return try body(UnsafeRawBufferPointer(start: buf.baseAddress, count: n))
        }
    }
}
