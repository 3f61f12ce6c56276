/// The protected header members the kernel acts on, read in one pass over
/// the decoded header without building a dictionary.
@_spi(Internals)
public struct JOSEHeader {
    public var alg: JWTAlgorithm
    public var kid: JSONSpan?
    var typ: JSONSpan?

    /// The common shape without the JSON parser when the header has it
    /// (`JOSEHeader+CommonShape.swift`), the full strict parse otherwise.
    @inline(__always)
    public static func parse(_ header: UnsafeRawBufferPointer) throws(JWTError) -> JOSEHeader {
        if let common = parseCommonShape(header) { return common }
        return try parseInFull(header)
    }

    /// RFC 7515 §4.1 + RFC 8725. Key-carrying members (`jwk`, `jku`, `x5u`,
    /// `x5c`) are never read: keys come only from the trusted key set.
    static func parseInFull(_ header: UnsafeRawBufferPointer) throws(JWTError) -> JOSEHeader {
        let bytes = header.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var alg: JSONSpan?, kid: JSONSpan?, typ: JSONSpan?, crit: JSONSpan?, b64: JSONSpan?
        var parser = JSONParser(header)
        try parser.forEachTopLevelMemberWithKey { (_, key, value) throws(JWTError) in
            switch key.value {
            case JSONNameKey.alg:
                guard value.kind == .string else { throw JWTError(.malformed, "header alg is not a string") }
                alg = value
            case JSONNameKey.kid:
                guard value.kind == .string else { throw JWTError(.malformed, "header kid is not a string") }
                kid = value
            case JSONNameKey.typ:
                guard value.kind == .string else { throw JWTError(.malformed, "header typ is not a string") }
                typ = value
            case JSONNameKey.crit: crit = value
            case JSONNameKey.b64: b64 = value
            default: break
            }
        }
        guard let alg else { throw JWTError(.malformed, "header has no alg") }
        guard let algorithm = JWTAlgorithm.parse(alg, in: bytes) else {
            if JWTAlgorithm.isNone(alg, in: bytes) { throw JWTError(.unsupportedAlg, "alg none is never accepted") }
            throw JWTError(.unsupportedAlg, "alg is not one the kernel verifies")
        }
        // RFC 7515 §4.1.11: crit must be a non-empty array of names of
        // extensions the recipient implements. This kernel implements none, so
        // any crit is refused; a malformed one is refused just the same.
        if crit != nil {
            throw JWTError(.critUnsupported, "header crit names an extension the kernel does not implement")
        }
        // RFC 7797 §7: a JWT never uses the unencoded payload option, with or without crit.
        if let b64, b64.kind != .true {
            throw JWTError(.malformed, "header b64 is not true (RFC 7797 is not for JWTs)")
        }
        return JOSEHeader(alg: algorithm, kid: kid, typ: typ)
    }
}
