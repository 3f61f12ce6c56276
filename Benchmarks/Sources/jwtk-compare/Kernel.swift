#if WITH_JWTKERNEL
import Dispatch
import Foundation
import JWTKernel

/// jwt-kernel as a deployment would set it up: the IdP's JWKS for the asymmetric
/// algorithms, the service's own secret for HS256, one verifier per trust source, a fixed
/// clock at the fixtures' `now`.
struct KernelPeer: Sendable {
    let publicKeys: JWTVerifier
    let secretKey: JWTVerifier

    init(_ f: Fixtures) throws {
        let policy = ClaimsPolicy(issuers: [f.iss], audiences: [f.aud])
        let clock = FixedClock(f.now)
        publicKeys = JWTVerifier(keys: try JWKSet(json: try f.bytes("jwks.json")), policy: policy, clock: clock)
        let secret = try VerificationKey(hmacSecret: try f.bytes("hs256.key"), kid: "hs256-1", algorithm: .hs256)
        secretKey = JWTVerifier(keys: JWKSet(keys: [secret]), policy: policy, clock: clock)
    }

    private func verifier(for alg: String) -> JWTVerifier {
        alg == "HS256" ? secretKey : publicKeys
    }

    /// The everyday API: a String in, a VerifiedJWT (claims copied out) back.
    func single(_ token: String, alg: String) throws -> Runner? {
        let v = verifier(for: alg)
        return { n in
            var ok = 0
            for _ in 0..<n where (try? v.verify(token)) != nil { ok += 1 }
            return ok
        }
    }

    /// HOOK(batch): no batch API yet, so the single-token API is spread over `threads`
    /// threads with concurrentPerform. Replace the body with the batch call when it lands.
    func batch(_ token: String, alg: String, threads: Int) throws -> Runner? {
        try single(token, alg: alg).map { spread($0, threads: threads) }
    }

    /// HOOK(cached): verified-token cache hits. Returns nil ("n/a") until the cache API exists.
    func cached(_ token: String, alg: String) throws -> Runner? {
        nil
    }
}

#endif
