/// Where the registered claims (RFC 7519 §4.1) and the OpenID Connect ones the
/// policy checks sit in a claims set, read in one pass. Types are enforced
/// here, whether or not the policy looks at the value: a claim of the wrong
/// JSON type is an error, never silently skipped.
@_spi(Internals)
public struct RegisteredClaims: Sendable {
    public var iss: JSONSpan?
    public var sub: JSONSpan?
    /// A string, or an array of strings.
    public var aud: JSONSpan?
    public var jti: JSONSpan?
    public var nonce: JSONSpan?
    public var azp: JSONSpan?
    public var exp: Double?
    public var nbf: Double?
    public var iat: Double?
    /// The three dates in whole seconds, exactly (meaningful when the date is present): what the time
    /// checks compare, rounding a fraction toward refusal (`NumericDateBounds`).
    public var expSeconds = NumericDateBounds.zero
    public var nbfSeconds = NumericDateBounds.zero
    public var iatSeconds = NumericDateBounds.zero
    /// Bit i set when `CompiledPolicy.requiredClaims[i]` is present.
    var requiredPresent: UInt64 = 0

    @_spi(Internals)
    public static func read(
        _ claims: UnsafeRawBufferPointer, required: [JSONNameKey], requiredNames: [[UInt8]]
    ) throws(JWTError) -> RegisteredClaims {
        // `recording: nil` folds the requirement test out of this copy of the member loop: a policy without
        // requirements pays nothing for them.
        try read(claims, required: required, requiredNames: requiredNames, recording: nil, into: nil)
    }

    /// The same pass, also recording each claim requirement's top-level claim: `heads[i]` becomes the value
    /// of the member requirement i's pointer starts with (left as it was, `absentHead`, when there is none).
    static func read(
        _ claims: UnsafeRawBufferPointer, required: [JSONNameKey], requiredNames: [[UInt8]],
        recording requirements: CompiledRequirements, into heads: UnsafeMutableBufferPointer<JSONSpan>
    ) throws(JWTError) -> RegisteredClaims {
        try read(claims, required: required, requiredNames: requiredNames, recording: .some(requirements), into: heads)
    }

    @inline(__always)
    private static func read(
        _ claims: UnsafeRawBufferPointer, required: [JSONNameKey], requiredNames: [[UInt8]],
        recording requirements: CompiledRequirements?, into heads: UnsafeMutableBufferPointer<JSONSpan>?
    ) throws(JWTError) -> RegisteredClaims {
        let bytes = claims.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var c = RegisteredClaims()
        var parser = JSONParser(claims)
        let filter = requirements?.filter ?? 0
        try parser.forEachTopLevelMemberWithKey { (name, key, value) throws(JWTError) in
            for i in required.indices where required[i] == key {
                let hit = key.isExact || requiredNames[i].withUnsafeBytes { JSONString.equals(name, in: bytes, $0) }
                if hit { c.requiredPresent |= 1 << UInt64(i) }
            }
            // One bit test skips a member no requirement names (`filter`: a bit per requirement's head key).
            if let requirements, let heads, filter & CompiledRequirement.filterBit(key) != 0 {
                requirements.recordHead(name, key, value, bytes, heads)
            }
            switch key.value {
            case JSONNameKey.exp: (c.exp, c.expSeconds) = try numericDate(value, bytes, "exp is not a number")
            case JSONNameKey.nbf: (c.nbf, c.nbfSeconds) = try numericDate(value, bytes, "nbf is not a number")
            case JSONNameKey.iat: (c.iat, c.iatSeconds) = try numericDate(value, bytes, "iat is not a number")
            case JSONNameKey.iss: c.iss = try string(value, "iss is not a string")
            case JSONNameKey.sub: c.sub = try string(value, "sub is not a string")
            case JSONNameKey.aud: c.aud = try audience(value, claims)
            case JSONNameKey.jti: c.jti = try string(value, "jti is not a string")
            case JSONNameKey.nonce: c.nonce = try string(value, "nonce is not a string")
            case JSONNameKey.azp: c.azp = try string(value, "azp is not a string")
            default: break
            }
        }
        return c
    }

    @inline(__always)
    private static func numericDate(
        _ v: JSONSpan, _ bytes: UnsafePointer<UInt8>, _ why: StaticString
    ) throws(JWTError) -> (Double, NumericDateBounds) {
        guard v.kind == .number else { throw JWTError(.badClaimType, why) }
        let (value, bounds) = JSONNumber.date(v, in: bytes)
        // 1e400 parses as infinity: a date that never comes is not a NumericDate.
        guard value.isFinite else { throw JWTError(.badClaimType, "NumericDate is out of range") }
        return (value, bounds)
    }

    private static func string(_ v: JSONSpan, _ why: StaticString) throws(JWTError) -> JSONSpan {
        guard v.kind == .string else { throw JWTError(.badClaimType, why) }
        return v
    }

    private static func audience(_ v: JSONSpan, _ claims: UnsafeRawBufferPointer) throws(JWTError) -> JSONSpan {
        if v.kind == .string { return v }
        guard v.kind == .array else { throw JWTError(.badClaimType, "aud is neither a string nor an array") }
        try forEachAudience(v, in: claims) { (element) throws(JWTError) in
            guard element.kind == .string else { throw JWTError(.badClaimType, "aud array holds a non-string") }
        }
        return v
    }

    /// Calls `body` with each element of an `aud` array (or the single string).
    static func forEachAudience(
        _ aud: JSONSpan, in claims: UnsafeRawBufferPointer, _ body: (JSONSpan) throws(JWTError) -> Void
    ) throws(JWTError) {
        if aud.kind == .string { return try body(aud) }
        var parser = JSONParser(
            bytes: claims.baseAddress!.assumingMemoryBound(to: UInt8.self), count: aud.end, at: aud.start,
            maxDepth: JSONParser.defaultMaxDepth)
        try parser.parseArrayElements(depth: 1, body)
    }
}
