import FuzzSupport
@_spi(Internals) import JWTKernel

// The verifiers every verify harness checks a token against: one key set (the fixture JWKS plus
// the RSA signing key "rsf") at FuzzFixtures.now, a default and a strict policy, and cached
// twins sharing one small VerifiedTokenCache (small so that entries get evicted).
#if canImport(Glibc)
import Glibc
#endif

let now = FuzzFixtures.now
let defaultPolicy = ClaimsPolicy()
let defaultVerifier = JWTVerifier(keys: FuzzKeys.withRSASigner, policy: defaultPolicy, clock: FixedClock(now))

let strictIssuer = "https://issuer.example"
let strictNonce = "n-0S6_WzA2Mj"
let strictPolicy = ClaimsPolicy(
    algorithms: AlgorithmSet([JWTAlgorithm.hs256, .rs256, .es256, .edDSA]),
    issuers: ["https://other.example", strictIssuer], audiences: ["api", "api2"], leeway: 30,
    requireExpiration: true, rejectIssuedInFuture: true, maxAge: 7200, requiredClaims: ["sub", "jti"],
    expectedType: "JWT", expectedNonce: strictNonce)
let strictVerifier = JWTVerifier(keys: FuzzKeys.withRSASigner, policy: strictPolicy, clock: FixedClock(now))

// 7. Claim requirements: the default policy plus two, on a space-separated string or array and on a
// boolean, checked against a reference computed from the accepted token's parsed claims.
let requirementPolicy = ClaimsPolicy(claimRequirements: [
    try! ClaimRequirement("/scope", .containsAny(["read", "admin"])),
    try! ClaimRequirement("/email_verified", .equals(true)),
])
let requirementVerifier = JWTVerifier(keys: FuzzKeys.withRSASigner, policy: requirementPolicy, clock: FixedClock(now))

// 6. One shared cache, small enough to evict; each cached verifier has an uncached twin.
let sharedCache = VerifiedTokenCache(.init(capacity: 64, maxTokenSize: 4096, shards: 2))
let later = now + 7200  // past the fixture tokens' exp (+3600) and the leeway
let rotatedKeys = JWKSet(keys: FuzzKeys.withRSASigner.keys.filter { $0.kid != "hs" })
let cachedPairs: [(name: String, cached: JWTVerifier, plain: JWTVerifier)] = [
    (
        "default",
        JWTVerifier(keys: FuzzKeys.withRSASigner, policy: defaultPolicy, clock: FixedClock(now), cache: sharedCache),
        defaultVerifier
    ),
    (
        "later clock",
        JWTVerifier(keys: FuzzKeys.withRSASigner, policy: defaultPolicy, clock: FixedClock(later), cache: sharedCache),
        JWTVerifier(keys: FuzzKeys.withRSASigner, policy: defaultPolicy, clock: FixedClock(later))
    ),
    (
        "strict",
        JWTVerifier(keys: FuzzKeys.withRSASigner, policy: strictPolicy, clock: FixedClock(now), cache: sharedCache),
        strictVerifier
    ),
    (
        "claim requirements",
        JWTVerifier(
            keys: FuzzKeys.withRSASigner, policy: requirementPolicy, clock: FixedClock(now), cache: sharedCache),
        requirementVerifier
    ),
    (
        "rotated keys",
        JWTVerifier(keys: FuzzKeys.withRSASigner, policy: defaultPolicy, clock: FixedClock(now), cache: sharedCache)
            .replacingKeys(rotatedKeys),
        JWTVerifier(keys: rotatedKeys, policy: defaultPolicy, clock: FixedClock(now))
    ),
]

/// Errors only the claims stage (after the signature) can produce.
let claimsStageCodes: Set<JWTErrorCode> = [
    .expired, .notYetValid, .issuedInFuture, .badIssuer, .badAudience, .missingClaim,
    .badClaimType, .badNonce, .malformed,
]

func verifyResult(_ v: JWTVerifier, _ token: UnsafeRawBufferPointer) -> Result<VerifiedJWT, JWTError> {
    Result { () throws(JWTError) in try v.verify(token) { $0.copy() } }
}

extension Result {
    var successValue: Success? { if case .success(let s) = self { s } else { nil } }
    var failureValue: Failure? { if case .failure(let f) = self { f } else { nil } }
}
