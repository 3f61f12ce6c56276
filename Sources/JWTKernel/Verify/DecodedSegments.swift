/// A token's three segments and where their decoded bytes go in this thread's
/// scratch: payload first, then header, then signature. The one prelude of
/// `JWTVerifier` (which decodes all three at once) and `MultiIssuerVerifier`
/// (which decodes the payload to route the token, and the rest only when its
/// cache misses): size limit, segments, decoded lengths, scratch.
///
/// Always inlined into both hot paths, so sharing it costs neither a call nor a copy.
struct DecodedSegments {
    let jws: CompactJWS
    let scratch: UnsafeMutableRawPointer
    let payloadCount: Int
    let headerCount: Int
    let signatureCount: Int

    /// Checks the size and the segments, then lends scratch for all three decoded segments to `body`.
    @inline(__always)
    static func with(
        _ token: UnsafeRawBufferPointer, maxTokenSize: Int,
        _ body: (DecodedSegments, ThreadScratch) throws(JWTError) -> Void
    ) throws(JWTError) {
        guard token.count <= maxTokenSize else { throw JWTError(.tooLarge, "token exceeds the size limit") }
        let jws = try CompactJWS(token)
        guard let payloadCount = Base64URL.decodedCount(jws.payload.count),
            let headerCount = Base64URL.decodedCount(jws.header.count),
            let signatureCount = Base64URL.decodedCount(jws.signature.count)
        else { throw JWTError(.malformed, "segment length is not valid base64url") }
        try ThreadScratch.withBuffer(count: payloadCount + headerCount + signatureCount) {
            (buffer, scratch) throws(JWTError) in
            try body(
                DecodedSegments(
                    jws: jws, scratch: buffer, payloadCount: payloadCount, headerCount: headerCount,
                    signatureCount: signatureCount), scratch)
        }
    }

    var payload: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: scratch, count: payloadCount) }
    var header: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: scratch + payloadCount, count: headerCount) }
    var signature: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: scratch + payloadCount + headerCount, count: signatureCount)
    }

    /// All three segments, with one vector dispatch (`JWTVerifier`, which needs them all).
    @inline(__always)
    func decodeAll() throws(JWTError) {
        guard
            Base64URL.decode(
                jws.payload, into: scratch, jws.header, into: scratch + payloadCount, jws.signature,
                into: scratch + payloadCount + headerCount)
        else { throw JWTError(.malformed, "segment is not canonical base64url") }
    }

    /// All three segments and the parsed header: from this thread's `HeaderMemo` when the header
    /// segment is the one it remembers (then only the payload and signature are decoded), otherwise
    /// decoded and parsed, and remembered.
    @inline(__always)
    func decodeAllAndParseHeader(_ memo: HeaderMemo) throws(JWTError) -> JOSEHeader {
        if let header = memo.recall(jws.header, into: scratch + payloadCount) {
            guard
                Base64URL.decode(
                    jws.payload, into: scratch, UnsafeRawBufferPointer(start: nil, count: 0), into: scratch,
                    jws.signature, into: scratch + payloadCount + headerCount)
            else { throw JWTError(.malformed, "segment is not canonical base64url") }
            return header
        }
        try decodeAll()
        let header = try JOSEHeader.parse(self.header)
        memo.remember(jws.header, decoded: self.header, header)
        return header
    }

    @inline(__always)
    func decodePayload() throws(JWTError) {
        guard Base64URL.decode(jws.payload, into: scratch) != nil else {
            throw JWTError(.malformed, "segment is not canonical base64url")
        }
    }

    /// Header and signature once the payload is decoded (`MultiIssuerVerifier`, after routing), the header
    /// parsed or recalled from this thread's `HeaderMemo` as `decodeAllAndParseHeader` does.
    @inline(__always)
    func decodeHeaderAndSignature(_ memo: HeaderMemo) throws(JWTError) -> JOSEHeader {
        if let header = memo.recall(jws.header, into: scratch + payloadCount) {
            guard Base64URL.decode(jws.signature, into: scratch + payloadCount + headerCount) != nil else {
                throw JWTError(.malformed, "segment is not canonical base64url")
            }
            return header
        }
        guard Base64URL.decode(jws.header, into: scratch + payloadCount) != nil,
            Base64URL.decode(jws.signature, into: scratch + payloadCount + headerCount) != nil
        else { throw JWTError(.malformed, "segment is not canonical base64url") }
        let header = try JOSEHeader.parse(self.header)
        memo.remember(jws.header, decoded: self.header, header)
        return header
    }
}
