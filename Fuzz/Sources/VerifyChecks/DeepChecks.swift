import FuzzSupport
@_spi(Internals) import JWTKernel

// The verify harnesses' invariants on one token. FuzzVerify and FuzzVerifySigned run all of
// them (deepChecks); the public-key harnesses run the signature subset (signatureChecks).
//
// Input format: VerifyInput.swift.
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
//      cache gives, on a miss and on a hit (and with claim requirements).
//   7. Claim requirements only ever add a claim_requirement_failed to what the default policy decides, and
//      decide as a reference reading the accepted token's parsed claims does (JSONValue, not the span walk).
#if canImport(Glibc)
import Glibc
#endif

/// FUZZ_VERBOSE=1: print each input's outcome (for replaying a corpus by hand).
let verbose = getenv("FUZZ_VERBOSE") != nil

/// Every invariant, 1-6 (FuzzVerify, FuzzVerifySigned: HMAC keys keep this cheap).
func deepChecks(_ token: UnsafeRawBufferPointer) {
    let first = verifyResult(defaultVerifier, token)
    if verbose { print("default: \(describe(first)); strict: \(describe(verifyResult(strictVerifier, token)))") }

    // 1. Determinism and API agreement.
    let again = verifyResult(defaultVerifier, token)
    require(sameOutcome(first, again), "re-verification differs: \(describe(first)) then \(describe(again))")
    let checked = defaultVerifier.check(token)
    require(
        checked == first.failureValue,
        "check() says \(checked.map(String.init(describing:)) ?? "ok"), verify says \(describe(first))")
    // Checks that cost several verifications run on a share of the inputs, picked by a hash of
    // the token (deterministic, so a replay repeats them): speed is depth (issue 12 wants
    // >= 5,000 execs/s per core with ASan), and the fuzzer sees every token many times over.
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in token { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
    if h & 3 == 0 {
        let nested: Result<VerifiedJWT, JWTError>? = try? defaultVerifier.verify(token) { outer in
            let inner = verifyResult(defaultVerifier, token)
            // The outer result is still intact after the nested verification used its own buffer.
            let outerCopy = outer.copy()
            require(
                inner.successValue.map { $0.isIdentical(to: outerCopy) } ?? false,
                "nested verification differs: \(describe(inner))")
            return .success(outerCopy)
        }
        if let nested {
            require(sameOutcome(first, nested), "nested outer result differs")
        } else {
            require(first.failureValue != nil, "nested verify rejected what verify accepted")
        }
    }

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
            require(
                s.algorithm == j.algorithm && s.key === j.key && s.kid == j.kid && s.header == j.header
                    && s.payload == j.claimsJSON, "verifyJWS and verify disagree on an accepted token")
        }
    }

    if case .success(let jwt) = first {
        acceptedInvariants(jwt, token, policy: defaultPolicy)
        mutationInvariants(jwt, token)
    }

    // 6. The cache: first call (miss, or a hit left by an earlier input), second call (hit if accepted).
    // One cached/uncached pair per input (all four over the corpus); every pair shares the cache.
    do {
        let (name, cached, plain) = cachedPairs[Int((h >> 8) % UInt64(cachedPairs.count))]
        let want = plain === defaultVerifier ? first : verifyResult(plain, token)
        let miss = verifyResult(cached, token)
        require(sameOutcome(want, miss), "cache (\(name)), first call: \(describe(miss)), uncached: \(describe(want))")
        let hit = verifyResult(cached, token)
        require(sameOutcome(want, hit), "cache (\(name)), second call: \(describe(hit)), uncached: \(describe(want))")
        require(cached.check(token) == want.failureValue, "cache (\(name)): check() differs")
    }

    // 7. Claim requirements against the reference.
    let required = verifyResult(requirementVerifier, token)
    switch (first, required) {
    case (.failure(let a), .failure(let b)): require(a == b, "requirements changed an earlier failure: \(a) -> \(b)")
    case (.failure(let a), .success): invariantFailed("requirements accept what the default refuses (\(a))")
    case (.success(let jwt), _):
        let want = referenceRequirementsHold(jwt)
        require(
            want ? required.successValue != nil : required.failureValue?.code == .claimRequirementFailed,
            "claim requirements: \(describe(required)), reference says \(want ? "met" : "unmet")")
    }

    // 5b. Strict policy: a subset of what the default accepts, and only tokens that meet it.
    let strict = verifyResult(strictVerifier, token)
    if case .success(let jwt) = strict {
        require(first.successValue != nil, "strict policy accepts what the default refuses: \(describe(first))")
        acceptedInvariants(jwt, token, policy: strictPolicy)
        require(
            jwt.issuer == strictIssuer || jwt.issuer == "https://other.example", "strict: iss \(jwt.issuer ?? "nil")")
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

/// `requirementPolicy`'s two requirements, decided from the parsed claims: `/scope` an array holding the
/// string "read" or "admin", or a string with one of them as a space-separated word; `/email_verified` true.
func referenceRequirementsHold(_ jwt: VerifiedJWT) -> Bool {
    let wanted: Set<String> = ["read", "admin"]
    let scopeOK: Bool
    switch jwt.claims["scope"] {
    case .array(let elements)?: scopeOK = elements.contains { $0.stringValue.map(wanted.contains) ?? false }
    case .string(let s)?: scopeOK = s.split(separator: " ").contains { wanted.contains(String($0)) }
    default: scopeOK = false
    }
    guard case .bool(true)? = jwt.claims["email_verified"] else { return false }
    return scopeOK
}
