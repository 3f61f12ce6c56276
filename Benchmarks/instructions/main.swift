// Instructions per verification (Benchmarks/instructions/run.sh): jwtk-compare's HS256 "single" and "required"
// cells (Kernel.swift: same fixture token, key, policy and loop), plus "nested"; N verifications per run.
import Foundation
@_spi(Internals) import JWTKernel

let args = CommandLine.arguments
let mode = args[1], n = Int(args[2])!
let dir = URL(fileURLWithPath: args[3])
let meta = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appending(path: "meta.json"))) as! [String: Any]
let token = try String(contentsOf: dir.appending(path: "hs256.jwt"), encoding: .utf8)
    .trimmingCharacters(in: .whitespacesAndNewlines)
var policy = ClaimsPolicy(issuers: [meta["iss"] as! String], audiences: [meta["aud"] as! String])
switch mode {
case "single": break
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
let secret = try VerificationKey(
    hmacSecret: Array(try Data(contentsOf: dir.appending(path: "hs256.key"))), kid: "hs256-1", algorithm: .hs256)
let v = JWTVerifier(
    keys: JWKSet(keys: [secret]), policy: policy, clock: FixedClock((meta["now"] as! NSNumber).int64Value))
let bytes = Array(token.utf8)
var ok = 0
bytes.withUnsafeBytes { raw in
    for _ in 0..<n where (try? v.verify(raw) { $0.claimsJSON.count }) != nil { ok += 1 }
}
if ok != n { print("FAILED: \(ok)/\(n)"); exit(1) }
