internal import CXXHash

#if canImport(Glibc)
import Glibc
#endif

/// A `ClaimsPolicy` turned into bytes once, so each check on the hot path is
/// a comparison against prepared data rather than a String conversion. A class: a verification reaches it
/// through one reference, where a struct of ten arrays was copied (a retain and a release each) per token.
@_spi(Internals)
public final class CompiledPolicy: Sendable {
    let algorithms: AlgorithmSet
    let issuers: [[UInt8]]
    let audiences: [[UInt8]]
    /// `!audiences.isEmpty || policy.audienceRequired`: an empty list with a required audience admits nothing.
    let checksAudience: Bool
    let leeway: Int64
    let requireExpiration: Bool
    let rejectIssuedInFuture: Bool
    let maxAge: Int64?
    public let requiredClaims: [[UInt8]]
    /// `requiredClaims` as name keys, matched against each member's key.
    public let requiredKeys: [JSONNameKey]
    /// Lower-cased, without an `application/` prefix (RFC 7515 §4.1.9).
    let expectedType: [UInt8]?
    let expectedNonce: [UInt8]?
    let requirements: CompiledRequirements
    /// `!requirements.isEmpty`, without reaching into the object (a policy without requirements pays nothing).
    let hasRequirements: Bool
    /// The requirements as given, for the fingerprint.
    let requirementSource: [ClaimRequirement]

    /// Identifies the policy's content, so a verified-token cache shared by
    /// several verifiers only serves entries checked under the same policy.
    var fingerprint: UInt64 {
        var text =
            "\(algorithms.rawValue)|\(issuers)|\(audiences)|\(checksAudience)|\(leeway)|\(requireExpiration)|\(rejectIssuedInFuture)|"
        text +=
            "\(String(describing: maxAge))|\(requiredClaims)|\(String(describing: expectedType))|\(String(describing: expectedNonce))"
        // Requirements are checked only when a token enters the cache: a policy with other requirements
        // must not be served entries admitted under these.
        text += "|\(requirementSource)"
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBytes { XXH3_64bits($0.baseAddress, $0.count) }
    }

    init(_ p: ClaimsPolicy) {
        precondition(p.requiredClaims.count <= 64, "at most 64 required claims")
        algorithms = p.algorithms
        issuers = p.issuers.map { Array($0.utf8) }
        audiences = p.audiences.map { Array($0.utf8) }
        checksAudience = !p.audiences.isEmpty || p.audienceRequired
        leeway = max(0, p.leeway)
        requireExpiration = p.requireExpiration
        rejectIssuedInFuture = p.rejectIssuedInFuture
        maxAge = p.maxAge
        requiredClaims = p.requiredClaims.map { Array($0.utf8) }
        requiredKeys = requiredClaims.map { JSONNameKey(bytes: $0) }
        expectedType = p.expectedType.map { Self.normalizedMediaType(Array($0.utf8)) }
        expectedNonce = p.expectedNonce.map { Array($0.utf8) }
        requirements = CompiledRequirements(p.claimRequirements)
        hasRequirements = !p.claimRequirements.isEmpty
        requirementSource = p.claimRequirements
    }

    static func normalizedMediaType(_ type: [UInt8]) -> [UInt8] {
        let lower = type.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        let prefix = Array("application/".utf8)
        return lower.starts(with: prefix) ? Array(lower.dropFirst(prefix.count)) : lower
    }

    /// Header `typ` against the expectation (inlined: most policies expect none, and then this is one test).
    @inline(__always)
    func checkType(_ typ: JSONSpan?, in header: UnsafeRawBufferPointer) throws(JWTError) {
        guard let expected = expectedType else { return }
        try checkType(typ, in: header, expected: expected)
    }

    private func checkType(_ typ: JSONSpan?, in header: UnsafeRawBufferPointer, expected: [UInt8]) throws(JWTError) {
        guard let typ else { throw JWTError(.badTyp, "header has no typ") }
        let bytes = header.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let ok = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) { buf -> Bool in
            guard let n = JSONString.decode(typ, in: bytes, into: buf.baseAddress!, capacity: 256) else { return false }
            for i in 0..<n where buf[i] >= 0x41 && buf[i] <= 0x5A { buf[i] |= 0x20 }
            var start = 0
            let prefix: StaticString = "application/"
            if n >= prefix.utf8CodeUnitCount, memcmp(buf.baseAddress!, prefix.utf8Start, prefix.utf8CodeUnitCount) == 0
            {
                start = prefix.utf8CodeUnitCount
            }
            return expected.elementsEqual(buf[start..<n])
        }
        guard ok else { throw JWTError(.badTyp, "header typ is not the expected type") }
    }

    /// Claims against the policy at time `now`: time first, then identity claims.
    public func check(_ c: RegisteredClaims, in claims: UnsafeRawBufferPointer, now: Int64) throws(JWTError) {
        try checkTimes(c, now: now)
        try checkIdentity(c, in: claims)
    }

    /// `RegisteredClaims.read` then `check`, for a verifier that knows its policy before it reads the claims
    /// and has claim requirements (`hasRequirements`; without, the caller reads and checks as before, so a
    /// policy without requirements pays nothing): the one pass of `read` also records each requirement's
    /// top-level claim (in stack memory), so checking them needs no further walk of the claims. Same checks
    /// in the same order, the clock read after the claims, as `check` does.
    func readAndCheckRequirements(
        _ payload: UnsafeRawBufferPointer, at now: Int64?, clock: any JWTClock
    ) throws(JWTError) -> RegisteredClaims {
        try withUnsafeTemporaryAllocation(of: JSONSpan.self, capacity: requirements.count) {
            (heads) throws(JWTError) -> RegisteredClaims in
            heads.initialize(repeating: CompiledRequirement.absentHead)
            let claims = try RegisteredClaims.read(
                payload, required: requiredKeys, requiredNames: requiredClaims, recording: requirements, into: heads)
            try checkTimes(claims, now: now ?? clock.now())
            try checkIdentity(claims, in: payload, requirementHeads: UnsafeBufferPointer(heads))
            return claims
        }
    }

    /// The time-dependent checks, which a cached verification must repeat on every hit.
    /// Inlined so a hit reads the three dates in place instead of copying the whole claims record.
    /// Whole seconds, exactly; a date's fraction rounds toward refusal (`NumericDateBounds`).
    @inline(__always)
    func checkTimes(_ c: RegisteredClaims, now t: Int64) throws(JWTError) {
        if c.exp != nil {
            guard t < c.expSeconds.floor.clampedAdding(leeway) else {
                throw JWTError(.expired, "token has expired (exp)")
            }
        } else if requireExpiration {
            throw JWTError(.missingClaim, "exp is required")
        }
        if c.nbf != nil, t.clampedAdding(leeway) < c.nbfSeconds.ceiling {
            throw JWTError(.notYetValid, "token is not valid yet (nbf)")
        }
        if rejectIssuedInFuture, c.iat != nil, t.clampedAdding(leeway) < c.iatSeconds.ceiling {
            throw JWTError(.issuedInFuture, "token was issued in the future (iat)")
        }
        if let maxAge {
            guard c.iat != nil else { throw JWTError(.missingClaim, "iat is required for a maximum age") }
            // now - iat <= maxAge + leeway, written so no term overflows: iat is clamped to Int64.
            guard t <= c.iatSeconds.floor.clampedAdding(maxAge.clampedAdding(leeway)) else {
                throw JWTError(.expired, "token is older than the maximum age")
            }
        }
    }

    /// The checks that do not depend on time (issuer, audience, nonce, required claims, claim requirements).
    func checkIdentity(_ c: RegisteredClaims, in claims: UnsafeRawBufferPointer) throws(JWTError) {
        try checkIdentityClaims(c, in: claims)
        // Last: a requirement's failure (403) must only ever reach a token that is otherwise valid.
        if hasRequirements { try requirements.checkAll(claims) }
    }

    /// The same, each requirement's top-level claim as `RegisteredClaims.read` recorded it in `requirementHeads`.
    func checkIdentity(
        _ c: RegisteredClaims, in claims: UnsafeRawBufferPointer, requirementHeads: UnsafeBufferPointer<JSONSpan>
    ) throws(JWTError) {
        try checkIdentityClaims(c, in: claims)
        try requirements.checkAll(claims, heads: requirementHeads)
    }

    @inline(__always)
    private func checkIdentityClaims(_ c: RegisteredClaims, in claims: UnsafeRawBufferPointer) throws(JWTError) {
        let bytes = claims.baseAddress!.assumingMemoryBound(to: UInt8.self)
        if !issuers.isEmpty {
            guard let iss = c.iss else { throw JWTError(.missingClaim, "iss is required") }
            guard Self.matchesAny(iss, bytes, issuers) else {
                throw JWTError(.badIssuer, "iss is not an accepted issuer")
            }
        }
        if checksAudience {
            guard !audiences.isEmpty else {
                throw JWTError(.badAudience, "no audience is configured, and this policy requires one")
            }
            guard let aud = c.aud else { throw JWTError(.missingClaim, "aud is required") }
            var matched = false
            try RegisteredClaims.forEachAudience(aud, in: claims) { (element) throws(JWTError) in
                if !matched { matched = Self.matchesAny(element, bytes, audiences) }
            }
            guard matched else { throw JWTError(.badAudience, "aud holds no accepted audience") }
        }
        if let expectedNonce {
            guard let nonce = c.nonce else { throw JWTError(.missingClaim, "nonce is required") }
            let ok = expectedNonce.withUnsafeBytes { JSONString.equals(nonce, in: bytes, $0) }
            guard ok else { throw JWTError(.badNonce, "nonce does not match") }
        }
        if !requiredClaims.isEmpty {
            let all: UInt64 = requiredClaims.count == 64 ? ~0 : (1 << UInt64(requiredClaims.count)) - 1
            guard c.requiredPresent == all else { throw JWTError(.missingClaim, "a required claim is missing") }
        }
    }

    private static func matchesAny(_ span: JSONSpan, _ bytes: UnsafePointer<UInt8>, _ accepted: [[UInt8]]) -> Bool {
        for value in accepted where value.withUnsafeBytes({ JSONString.equals(span, in: bytes, $0) }) {
            return true
        }
        return false
    }
}
