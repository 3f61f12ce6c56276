// FuzzVerify: arbitrary bytes through JWTVerifier against a fixed JWKS (HS256, oct, RS256,
// ES256, Ed25519, ES384, P-521) at a FixedClock time.
//
// Input format:
//   - first byte 0x00...0x07: "signed" mode. Byte % 5 picks a signing key (HS256 "hs",
//     ES256 "es", Ed25519 "ed", ES384 "es384", P-521 "es512"); the rest is
//     `headerJSON 0x00 claimsJSON` (no 0x00: empty claims). The harness base64url-encodes
//     and signs them, so fuzzed JSON reaches the header, key-selection, claims and policy
//     code behind a valid signature.
//   - anything else: "raw" mode, the bytes are the token.
//
// Invariants (beyond "never crashes"):
//   1. Verifying twice, through `check`, the String API, and nested inside a result callback
//      (ThreadScratch's in-use path) all give the same outcome.
//   2. An accepted token's alg is allowed by its key and the policy; its kid is the key's.
//   3. An accepted token is canonical (its segments re-encode to themselves), its header has
//      the alg reported and no crit, and its claims agree with an independent JSONValue read.
//   4. Flipping one bit of an accepted token's signature or claims makes it fail.
//   5. verifyJWS fails exactly where verify fails before the claims stage; a strict policy
//      accepts only tokens the default policy accepts, and only ones that meet it.
//   6. A VerifiedTokenCache never changes an outcome: verifiers sharing one small cache (so
//      entries get evicted) with the default policy, a later clock, the strict policy and a
//      rotated key set (without "hs") each give exactly what the same verifier without a
//      cache gives, on a miss and on a hit.
#if canImport(Glibc)
import Glibc
#endif
import FuzzSupport
@_spi(Internals) import JWTKernel

let now = FuzzFixtures.now
let defaultPolicy = ClaimsPolicy()
let defaultVerifier = JWTVerifier(keys: FuzzKeys.all, policy: defaultPolicy, clock: FixedClock(now))

let strictIssuer = "https://issuer.example"
let strictNonce = "n-0S6_WzA2Mj"
let strictPolicy = ClaimsPolicy(
    algorithms: AlgorithmSet([JWTAlgorithm.hs256, .rs256, .es256, .edDSA]),
    issuers: ["https://other.example", strictIssuer], audiences: ["api", "api2"], leeway: 30,
    requireExpiration: true, rejectIssuedInFuture: true, maxAge: 7200, requiredClaims: ["sub", "jti"],
    expectedType: "JWT", expectedNonce: strictNonce)
let strictVerifier = JWTVerifier(keys: FuzzKeys.all, policy: strictPolicy, clock: FixedClock(now))

// 6. One shared cache, small enough to evict; each cached verifier has an uncached twin.
let sharedCache = VerifiedTokenCache(.init(capacity: 64, maxTokenSize: 4096, shards: 2))
let later = now + 7200   // past the fixture tokens' exp (+3600) and the leeway
let rotatedKeys = JWKSet(keys: FuzzKeys.all.keys.filter { $0.kid != "hs" })
let cachedPairs: [(name: String, cached: JWTVerifier, plain: JWTVerifier)] = [
    ("default", JWTVerifier(keys: FuzzKeys.all, policy: defaultPolicy, clock: FixedClock(now), cache: sharedCache), defaultVerifier),
    ("later clock", JWTVerifier(keys: FuzzKeys.all, policy: defaultPolicy, clock: FixedClock(later), cache: sharedCache),
     JWTVerifier(keys: FuzzKeys.all, policy: defaultPolicy, clock: FixedClock(later))),
    ("strict", JWTVerifier(keys: FuzzKeys.all, policy: strictPolicy, clock: FixedClock(now), cache: sharedCache), strictVerifier),
    ("rotated keys", JWTVerifier(keys: FuzzKeys.all, policy: defaultPolicy, clock: FixedClock(now), cache: sharedCache).replacingKeys(rotatedKeys),
     JWTVerifier(keys: rotatedKeys, policy: defaultPolicy, clock: FixedClock(now))),
]

/// Errors only the claims stage (after the signature) can produce.
let claimsStageCodes: Set<JWTErrorCode> = [.expired, .notYetValid, .badIssuer, .badAudience, .missingClaim,
                                           .badClaimType, .badNonce, .malformed]

func verifyResult(_ v: JWTVerifier, _ token: UnsafeRawBufferPointer) -> Result<VerifiedJWT, JWTError> {
    Result { () throws(JWTError) in try v.verify(token) { $0.copy() } }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVerify(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    if let first = input.first, first < 0x08 {
        let key = FuzzSigner.Key.allCases[Int(first) % FuzzSigner.Key.allCases.count]
        let body = input.dropFirst()
        let sep = body.firstIndex(of: 0) ?? body.endIndex
        let header = body[body.startIndex..<sep]
        let claims = sep < body.endIndex ? body[(sep + 1)...] : body[body.endIndex...]
        let token = FuzzSigner.token(header: header, payload: claims, key: key)
        token.withUnsafeBytes { checkToken($0) }
    } else {
        // A private heap copy of exactly `size` bytes, so ASan sees any read past the token.
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 1)
        defer { copy.deallocate() }
        if size > 0 { copy.copyMemory(from: UnsafeRawBufferPointer(input)) }
        checkToken(UnsafeRawBufferPointer(copy))
    }
    return 0
}

/// FUZZ_VERBOSE=1: print each input's outcome (for replaying a corpus by hand).
let verbose = getenv("FUZZ_VERBOSE") != nil

func checkToken(_ token: UnsafeRawBufferPointer) {
    let first = verifyResult(defaultVerifier, token)
    if verbose { print("default: \(describe(first)); strict: \(describe(verifyResult(strictVerifier, token)))") }

    // 1. Determinism and API agreement.
    let again = verifyResult(defaultVerifier, token)
    require(sameOutcome(first, again), "re-verification differs: \(describe(first)) then \(describe(again))")
    let checked = defaultVerifier.check(token)
    require(checked == first.failureValue, "check() says \(checked.map(String.init(describing:)) ?? "ok"), verify says \(describe(first))")
    let nested: Result<VerifiedJWT, JWTError>? = try? defaultVerifier.verify(token) { outer in
        let inner = verifyResult(defaultVerifier, token)
        // The outer result is still intact after the nested verification used its own buffer.
        let outerCopy = outer.copy()
        require(inner.successValue.map { $0.isIdentical(to: outerCopy) } ?? false,
                "nested verification differs: \(describe(inner))")
        return .success(outerCopy)
    }
    if let nested { require(sameOutcome(first, nested), "nested outer result differs") }
    else { require(first.failureValue != nil, "nested verify rejected what verify accepted") }

    let text = String(validating: token, as: UTF8.self)
    if let text {
        let viaString = Result { () throws(JWTError) in try defaultVerifier.verify(text) }
        require(sameOutcome(first, viaString), "String API: \(describe(viaString)) vs \(describe(first))")
        // 5a. The JWS path shares everything up to the signature.
        let jws = Result { () throws(JWTError) in try defaultVerifier.verifyJWS(text) }
        switch (jws, first) {
        case (.failure(let a), .failure(let b)):
            require(a == b, "verifyJWS fails with \(a), verify with \(b)")
        case (.failure(let a), .success):
            invariantFailed("verifyJWS fails (\(a)) on a token verify accepts")
        case (.success(let s), .failure(let e)):
            require(claimsStageCodes.contains(e.code), "JWS verifies but the JWT fails before the claims stage: \(e)")
            _ = s
        case (.success(let s), .success(let j)):
            require(s.algorithm == j.algorithm && s.key === j.key && s.kid == j.kid && s.header == j.header
                    && s.payload == j.claimsJSON, "verifyJWS and verify disagree on an accepted token")
        }
    }

    if case .success(let jwt) = first {
        acceptedInvariants(jwt, token, policy: defaultPolicy)
        mutationInvariants(jwt, token)
    }

    // 6. The cache: first call (miss, or a hit left by an earlier input), second call (hit if accepted).
    for (name, cached, plain) in cachedPairs {
        let want = plain === defaultVerifier ? first : verifyResult(plain, token)
        let miss = verifyResult(cached, token)
        require(sameOutcome(want, miss), "cache (\(name)), first call: \(describe(miss)), uncached: \(describe(want))")
        let hit = verifyResult(cached, token)
        require(sameOutcome(want, hit), "cache (\(name)), second call: \(describe(hit)), uncached: \(describe(want))")
        require(cached.check(token) == want.failureValue, "cache (\(name)): check() differs")
    }

    // 5b. Strict policy: a subset of what the default accepts, and only tokens that meet it.
    let strict = verifyResult(strictVerifier, token)
    if case .success(let jwt) = strict {
        require(first.successValue != nil, "strict policy accepts what the default refuses: \(describe(first))")
        acceptedInvariants(jwt, token, policy: strictPolicy)
        require(jwt.issuer == strictIssuer || jwt.issuer == "https://other.example", "strict: iss \(jwt.issuer ?? "nil")")
        require(jwt.audiences.contains("api") || jwt.audiences.contains("api2"), "strict: aud \(jwt.audiences)")
        require(jwt.nonce == strictNonce, "strict: nonce \(jwt.nonce ?? "nil")")
        require(jwt.subject != nil, "strict: sub required")
        guard let iat = jwt.issuedAt else { invariantFailed("strict: maxAge needs iat") }
        require(Double(now) - iat <= 7200 + 30 && Double(now) + 30 >= iat, "strict: iat \(iat) outside the window")
        if let hv = try? JSONValue.parse(jwt.header) {
            let typ = hv["typ"]?.stringValue?.lowercased()
            require(typ == "jwt" || typ == "application/jwt", "strict: typ \(String(describing: typ))")
        }
        if let cv = try? JSONValue.parse(jwt.claimsJSON) {
            require(cv["jti"] != nil && cv["sub"] != nil, "strict: required claims missing")
        }
    }
}

/// 2 and 3: what must hold for every token a policy accepts.
func acceptedInvariants(_ jwt: VerifiedJWT, _ token: UnsafeRawBufferPointer, policy: ClaimsPolicy) {
    let alg = jwt.algorithm
    require(jwt.key.algorithms.contains(alg), "accepted \(alg.rawValue) with key \(jwt.key) that does not allow it")
    require(policy.algorithms.contains(alg), "accepted \(alg.rawValue), which the policy does not allow")
    switch (alg.family, jwt.key.type) {
    case (.hmac, .oct), (.rsaPKCS1, .rsa), (.rsaPSS, .rsa), (.ecdsa, .ec), (.eddsa, .okp): break
    default: invariantFailed("accepted \(alg.rawValue) with a \(jwt.key.type) key")
    }
    if let kid = jwt.kid { require(kid == jwt.key.kid, "token kid \(kid) but key kid \(jwt.key.kid ?? "nil")") }

    // Canonical: the token is exactly the encoding of what it decoded to.
    let segments = Array(token).split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
    require(segments.count == 3, "accepted token has \(segments.count) segments")
    require(Array(Base64URL.encode(jwt.header).utf8) == Array(segments[0]), "header segment is not canonical")
    require(Array(Base64URL.encode(jwt.claimsJSON).utf8) == Array(segments[1]), "payload segment is not canonical")

    // Header, read independently.
    do {
        let header = try JSONValue.parse(jwt.header)
        require(header["alg"]?.stringValue == alg.rawValue, "header alg \(String(describing: header["alg"])) but verified as \(alg.rawValue)")
        require(header["crit"] == nil, "accepted a header with crit")
        if case .string(let k)? = header["kid"] { require(jwt.kid == k, "kid accessor \(jwt.kid ?? "nil") vs header \(k)") }
        else { require(jwt.kid == nil, "kid accessor without a string kid") }
    } catch {
        invariantFailed("accepted a header that JSONValue refuses: \(error)")
    }

    // Time checks against the policy (default leeway 60, strict 30).
    let t = Double(now), leeway = Double(max(0, policy.leeway))
    if policy.requireExpiration { require(jwt.expiresAt != nil, "accepted without exp") }
    if let exp = jwt.expiresAt { require(t < exp + leeway, "accepted expired token: exp \(exp)") }
    if let nbf = jwt.notBefore { require(t + leeway >= nbf, "accepted token before nbf \(nbf)") }

    // Claims, read independently.
    do {
        let claims = try JSONValue.parse(jwt.claimsJSON)
        guard let members = claims.objectValue else { invariantFailed("accepted claims that are not an object") }
        var names = Set<[UInt8]>()
        for m in members { require(names.insert(Array(m.name.utf8)).inserted, "duplicate top-level claim \(m.name)") }
        func number(_ name: String) -> Double? {
            guard let v = claims[name] else { return nil }
            guard case .number(let text) = v else { invariantFailed("\(name) accepted but is not a number: \(v)") }
            return Double(text)
        }
        require(number("exp") == jwt.expiresAt, "exp \(String(describing: jwt.expiresAt)) vs JSON \(String(describing: number("exp")))")
        require(number("nbf") == jwt.notBefore, "nbf differs from the JSON")
        require(number("iat") == jwt.issuedAt, "iat differs from the JSON")
        require(claims["iss"]?.stringValue == jwt.issuer, "iss differs from the JSON")
        require(claims["sub"]?.stringValue == jwt.subject, "sub differs from the JSON")
        require(claims["nonce"]?.stringValue == jwt.nonce, "nonce differs from the JSON")
        require(claims["azp"]?.stringValue == jwt.authorizedParty, "azp differs from the JSON")
        switch claims["aud"] {
        case nil: require(jwt.audiences.isEmpty, "audiences without aud")
        case .string(let s)?: require(jwt.audiences == [s], "aud \(s) vs \(jwt.audiences)")
        case .array(let a)?: require(a.map(\.stringValue) == jwt.audiences.map(Optional.some), "aud array vs \(jwt.audiences)")
        case let other?: invariantFailed("accepted aud of the wrong type: \(other)")
        }
        for name in ["iss", "sub", "jti", "nonce", "azp"] {
            if let v = claims[name] { require(v.stringValue != nil, "accepted non-string \(name)") }
        }
        require(jwt.claims == claims, "VerifiedJWT.claims differs from JSONValue.parse(claimsJSON)")
    } catch {
        // (Before 57a1d7f nested duplicate names got here: the token verified, `claims` was empty.)
        invariantFailed("accepted claims that JSONValue refuses: \(error)")
    }
}

/// 4. One flipped bit in the signature or the claims of an accepted token must fail it.
func mutationInvariants(_ jwt: VerifiedJWT, _ token: UnsafeRawBufferPointer) {
    let segments = Array(token).split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).map { Array($0) }
    guard segments.count == 3, var sig = Base64URL.decode(String(decoding: segments[2], as: UTF8.self)), !sig.isEmpty else {
        invariantFailed("accepted token whose signature segment does not decode")
    }
    // Position from the token's bytes, so runs are deterministic.
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in token { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
    sig[Int(h % UInt64(sig.count))] ^= UInt8(1) << (h >> 8 & 7)
    let forged = segments[0] + [UInt8(ascii: ".")] + segments[1] + [UInt8(ascii: ".")] + Array(Base64URL.encode(sig).utf8)
    let r = forged.withUnsafeBytes { verifyResult(defaultVerifier, $0) }
    require(r.failureValue?.code == .badSignature, "signature with a flipped bit: \(describe(r))")

    var claims = jwt.claimsJSON
    if !claims.isEmpty {
        claims[Int((h >> 16) % UInt64(claims.count))] ^= UInt8(1) << (h >> 24 & 7)
        let tampered = segments[0] + [UInt8(ascii: ".")] + Array(Base64URL.encode(claims).utf8) + [UInt8(ascii: ".")] + segments[2]
        let r2 = tampered.withUnsafeBytes { verifyResult(defaultVerifier, $0) }
        require(r2.failureValue?.code == .badSignature, "claims with a flipped bit: \(describe(r2))")
    }
}

extension Result {
    var successValue: Success? { if case .success(let s) = self { s } else { nil } }
    var failureValue: Failure? { if case .failure(let f) = self { f } else { nil } }
}

#if !FUZZING
@main struct Replay {
    static func main() { FuzzReplay.run("FuzzVerify", fuzzVerify) }
}
#endif
