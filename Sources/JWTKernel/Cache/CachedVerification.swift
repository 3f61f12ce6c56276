/// What a hit yields: enough to rebuild a `VerifiedToken` over the entry's bytes.
struct CachedVerification {
    let algorithm: JWTAlgorithm
    let key: VerificationKey
    let headerCount: Int
    let claimsCount: Int
    let claims: RegisteredClaims
    let kidSpan: JSONSpan?
}
