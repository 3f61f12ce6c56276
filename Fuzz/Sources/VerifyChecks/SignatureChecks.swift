// The public-key harnesses' subset of the invariants: public-key work dominates each input
// there, so only what exercises the signature code is kept (determinism, what an accepted
// token must satisfy, a flipped signature or claims bit fails, the strict policy accepts a
// subset). The API-agreement and cache checks run in the HMAC harnesses, where they are cheap.
import FuzzSupport
@_spi(Internals) import JWTKernel

func signatureChecks(_ token: UnsafeRawBufferPointer) {
    let first = verifyResult(defaultVerifier, token)
    if verbose { print("default: \(describe(first))") }
    let again = verifyResult(defaultVerifier, token)
    require(sameOutcome(first, again), "re-verification differs: \(describe(first)) then \(describe(again))")
    if case .success(let jwt) = first {
        acceptedInvariants(jwt, token, policy: defaultPolicy)
        mutationInvariants(jwt, token)
    }
    if case .success(let jwt) = verifyResult(strictVerifier, token) {
        require(first.successValue != nil, "strict policy accepts what the default refuses: \(describe(first))")
        acceptedInvariants(jwt, token, policy: strictPolicy)
    }
}
