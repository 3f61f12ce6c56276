/// The full verification pipeline, in the order docs/ARCHITECTURE.md describes.
extension JWTVerifier {
    func verifyInFull(_ token: UnsafeRawBufferPointer, _ body: (VerifiedToken) -> Void) throws(JWTError) {
        try withVerifiedSignature(token) { (parts) throws(JWTError) in
            let claims = try RegisteredClaims.read(
                parts.payload, required: compiled.requiredKeys, requiredNames: compiled.requiredClaims)
            try compiled.check(claims, in: parts.payload, now: clock.now())
            body(
                VerifiedToken(
                    algorithm: parts.header.alg, key: parts.key, header: parts.headerJSON,
                    claimsJSON: parts.payload, claims: claims, kidSpan: parts.header.kid))
        }
    }

    struct SignedParts {
        let header: JOSEHeader
        let headerJSON: UnsafeRawBufferPointer
        let payload: UnsafeRawBufferPointer
        let key: VerificationKey
    }

    /// Everything up to and including the signature, with decoded segments in scratch memory.
    /// Not generic (the result goes out through `body`'s captures): the hot path must not
    /// look up generic metadata per token.
    func withVerifiedSignature(
        _ token: UnsafeRawBufferPointer, _ body: (SignedParts) throws(JWTError) -> Void
    ) throws(JWTError) {
        guard token.count <= maxTokenSize else { throw JWTError(.tooLarge, "token exceeds the size limit") }
        let jws = try CompactJWS(token)
        guard let headerCount = Base64URL.decodedCount(jws.header.count),
            let payloadCount = Base64URL.decodedCount(jws.payload.count),
            let signatureCount = Base64URL.decodedCount(jws.signature.count)
        else { throw JWTError(.malformed, "segment length is not valid base64url") }

        try ThreadScratch.withBuffer(count: headerCount + payloadCount + signatureCount) {
            (scratch, contexts) throws(JWTError) in
            guard Base64URL.decode(jws.header, into: scratch) != nil,
                Base64URL.decode(jws.payload, into: scratch + headerCount) != nil,
                Base64URL.decode(jws.signature, into: scratch + headerCount + payloadCount) != nil
            else { throw JWTError(.malformed, "segment is not canonical base64url") }
            let headerJSON = UnsafeRawBufferPointer(start: scratch, count: headerCount)
            let payload = UnsafeRawBufferPointer(start: scratch + headerCount, count: payloadCount)
            let signature = UnsafeRawBufferPointer(start: scratch + headerCount + payloadCount, count: signatureCount)

            let (header, key) = try checkSignature(
                jws, headerJSON: headerJSON, signature: signature, contexts: contexts)
            try body(SignedParts(header: header, headerJSON: headerJSON, payload: payload, key: key))
        }
    }

    /// Header, alg and typ checks, key selection and the signature, over decoded
    /// segments (also MultiIssuerVerifier's, which decodes the token itself to route it).
    func checkSignature(
        _ jws: CompactJWS, headerJSON: UnsafeRawBufferPointer, signature: UnsafeRawBufferPointer,
        contexts: PKeyContextCache
    ) throws(JWTError) -> (JOSEHeader, VerificationKey) {
        let header = try JOSEHeader.parse(headerJSON)
        guard compiled.algorithms.contains(header.alg) else {
            throw JWTError(.algNotAllowed, "alg is not allowed by policy")
        }
        try compiled.checkType(header.typ, in: headerJSON)
        let key = try withKid(header, headerJSON) { (kid) throws(JWTError) in
            try resolution.select(kid: kid, alg: header.alg)
        }
        guard
            SignatureCheck.verify(
                header.alg, key: key, signingInput: jws.signingInput, signature: signature, contexts: contexts)
        else {
            throw JWTError(.badSignature, "signature does not verify")
        }
        return (header, key)
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
