// The Swift API's cells for callgrind (Benchmarks/instructions/run.sh, Benchmarks/guard.py): jwtk-compare's
// jwt-kernel cells (Kernel.swift: same fixture tokens, keys, policies and loop) for one algorithm and one mode,
// N verifications per run. Modes: "single" (issuer and audience), "cached" (the same on a verifier with a
// VerifiedTokenCache: every call after the first is a hit), "required" (four claim requirements, one per kind),
// "nested" ("required" with "/amr/1" equals "hwk", a nested step, in place of the array requirement).
//   instructions ALG MODE N FIXTURES-DIR          ALG: HS256 RS256 PS256 ES256 EdDSA
import Foundation
@_spi(Internals) import JWTKernel

let args = CommandLine.arguments
let alg = args[1], mode = args[2], n = Int(args[3])!
let dir = URL(fileURLWithPath: args[4])
let meta = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appending(path: "meta.json"))) as! [String: Any]
let token = try String(contentsOf: dir.appending(path: "\(alg.lowercased()).jwt"), encoding: .utf8)
    .trimmingCharacters(in: .whitespacesAndNewlines)
var policy = ClaimsPolicy(issuers: [meta["iss"] as! String], audiences: [meta["aud"] as! String])
var cache: VerifiedTokenCache? = nil
switch mode {
case "single": break
case "cached": cache = VerifiedTokenCache()
case "required":
    policy.claimRequirements = [
        try! ClaimRequirement("/email_verified", .equals(true)),
        try! ClaimRequirement("/real_user_status", .oneOf([1, 2])),
        try! ClaimRequirement("/amr", .containsAll(["pwd", "hwk"])),
        try! ClaimRequirement("/sid", .containsAny(["5a2f0c3e-8b7d-4e61-9c0a-2d4b6f8e1a3c"])),
    ]
case "nested":  // one pointer steps below the top level
    policy.claimRequirements = [
        try! ClaimRequirement("/email_verified", .equals(true)),
        try! ClaimRequirement("/real_user_status", .oneOf([1, 2])),
        try! ClaimRequirement("/amr/1", .equals("hwk")),
        try! ClaimRequirement("/sid", .containsAny(["5a2f0c3e-8b7d-4e61-9c0a-2d4b6f8e1a3c"])),
    ]
default: fatalError("mode")
}
// As KernelPeer: the service's own secret for HS256, the IdP's JWKS for the others.
let keys =
    alg == "HS256"
    ? JWKSet(keys: [
        try VerificationKey(
            hmacSecret: Array(try Data(contentsOf: dir.appending(path: "hs256.key"))), kid: "hs256-1",
            algorithm: .hs256)
    ])
    : try JWKSet(json: Array(try Data(contentsOf: dir.appending(path: "jwks.json"))))
let v = JWTVerifier(
    keys: keys, policy: policy, clock: FixedClock((meta["now"] as! NSNumber).int64Value), cache: cache)
let bytes = Array(token.utf8)
var ok = 0
bytes.withUnsafeBytes { raw in
    for _ in 0..<n where (try? v.verify(raw) { $0.claimsJSON.count }) != nil { ok += 1 }
}
if ok != n { print("FAILED: \(ok)/\(n)"); exit(1) }
