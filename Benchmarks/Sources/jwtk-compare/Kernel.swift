@_spi(Internals) import JWTKernel

/// jwt-kernel as a deployment would set it up: the IdP's JWKS for the asymmetric
/// algorithms and the service's own secret for HS256, one verifier per trust source
/// (a published key set never carries secrets), and a fixed clock at the fixtures' `now`.
struct KernelPeer: Sendable {
    let policy: ClaimsPolicy
    let clock: FixedClock
    let publicKeys: JWKSet
    let secretKey: JWKSet

    init(_ f: Fixtures) throws {
        policy = ClaimsPolicy(issuers: [f.iss], audiences: [f.aud])
        clock = FixedClock(f.now)
        publicKeys = try JWKSet(json: try f.bytes("jwks.json"))
        let secret = try VerificationKey(hmacSecret: try f.bytes("hs256.key"), kid: "hs256-1", algorithm: .hs256)
        secretKey = JWKSet(keys: [secret])
    }

    func verifier(for alg: String, cache: VerifiedTokenCache? = nil, policy: ClaimsPolicy? = nil) -> JWTVerifier {
        JWTVerifier(
            keys: alg == "HS256" ? secretKey : publicKeys, policy: policy ?? self.policy, clock: clock, cache: cache)
    }

    /// The policy plus four claim requirements a gateway might set on these Apple ID tokens, one per kind,
    /// on claims spread over the claims set (the last one after its longest string): the "required" row
    /// against the "single" row is their cost.
    var requiring: ClaimsPolicy {
        var p = policy
        p.claimRequirements = [
            try! ClaimRequirement("/email_verified", .equals(true)),
            try! ClaimRequirement("/real_user_status", .oneOf([1, 2])),
            try! ClaimRequirement("/amr", .containsAll(["pwd", "hwk"])),
            try! ClaimRequirement("/sid", .containsAny(["5a2f0c3e-8b7d-4e61-9c0a-2d4b6f8e1a3c"])),
        ]
        return p
    }

    /// `single` under `requiring`.
    func required(_ token: String, alg: String) throws -> Runner? {
        Self.loop(verifier(for: alg, policy: requiring), token)
    }

    /// The gateway API: the token's bytes in place, the verified view lent to a closure
    /// (no copy, no allocation); a gateway reads the claims it needs inside the closure.
    func single(_ token: String, alg: String) throws -> Runner? {
        Self.loop(verifier(for: alg), token)
    }

    /// The batch API on its zero-copy form: `n` views of the token in, one result per token
    /// out, spread over `threads` threads by the library itself.
    func batch(_ token: String, alg: String, threads: Int) throws -> Runner? {
        let v = verifier(for: alg)
        let bytes = Array(token.utf8)
        return { n in
            let views = UnsafeMutableBufferPointer<UnsafeRawBufferPointer>.allocate(capacity: n)
            let results = UnsafeMutableBufferPointer<JWTError?>.allocate(capacity: n)
            defer { views.deallocate(); results.deallocate() }
            return bytes.withUnsafeBytes { raw in
                views.initialize(repeating: raw)
                results.initialize(repeating: nil)
                v.verifyBatch(UnsafeBufferPointer(views), results: results, threads: threads)
                return results.count { $0 == nil }
            }
        }
    }

    /// Cache hits: the same call as `single` on a verifier with a VerifiedTokenCache, so the
    /// two rows differ only by the cache. Each runner gets its own cache; the warm-up fills it.
    func cached(_ token: String, alg: String) throws -> Runner? {
        Self.loop(verifier(for: alg, cache: VerifiedTokenCache()), token)
    }

    private static func loop(_ v: JWTVerifier, _ token: String) -> Runner {
        let bytes = Array(token.utf8)
        return { n in
            bytes.withUnsafeBytes { raw in
                var ok = 0
                for _ in 0..<n where (try? v.verify(raw) { $0.claimsJSON.count }) != nil { ok += 1 }
                return ok
            }
        }
    }
}
