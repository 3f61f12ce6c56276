// Micro benchmarks of jwt-kernel's hot path with package-benchmark:
//   cd Benchmarks && swift package benchmark --target KernelMicro
// Allocation counts come from the benchmark's malloc interposer; they are measured
// without peakMemoryResident/cpuTotal, which inflate them.
import Benchmark
import Foundation
@_spi(Internals) import JWTKernel

let fixtures = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appending(path: "Fixtures")

func fixture(_ name: String) -> [UInt8] { Array(try! Data(contentsOf: fixtures.appending(path: name))) }
func token(_ alg: String) -> [UInt8] {
    Array(fixture("\(alg.lowercased()).jwt").prefix { $0 != UInt8(ascii: "\n") })
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        maxDuration: .seconds(2), maxIterations: 1_000_000)

    let meta = try! JSONSerialization.jsonObject(with: Data(fixture("meta.json"))) as! [String: Any]
    let policy = ClaimsPolicy(issuers: [meta["iss"] as! String], audiences: [meta["aud"] as! String])
    let clock = FixedClock((meta["now"] as! NSNumber).int64Value)
    let publicKeys = JWTVerifier(keys: try! JWKSet(json: fixture("jwks.json")), policy: policy, clock: clock)
    let secret = try! VerificationKey(hmacSecret: fixture("hs256.key"), kid: "hs256-1", algorithm: .hs256)
    let secretKey = JWTVerifier(keys: JWKSet(keys: [secret]), policy: policy, clock: clock)

    for alg in ["HS256", "RS256", "PS256", "ES256", "EdDSA"] {
        let verifier = alg == "HS256" ? secretKey : publicKeys
        let bytes = token(alg)
        let string = String(decoding: bytes, as: UTF8.self)

        Benchmark("verify String \(alg)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try! verifier.verify(string)) }
        }
        Benchmark("verify bytes zero-copy \(alg)") { benchmark in
            bytes.withUnsafeBytes { raw in
                for _ in benchmark.scaledIterations { blackHole(try! verifier.verify(raw) { $0.algorithm }) }
            }
        }
    }

    for alg in ["HS256", "RS256"] {
        let bytes = token(alg)
        let cached = JWTVerifier(
            keys: alg == "HS256" ? secretKey.keys : publicKeys.keys, policy: policy, clock: clock,
            cache: VerifiedTokenCache())
        Benchmark("cache hit \(alg)", configuration: .init(scalingFactor: .kilo)) { benchmark in
            bytes.withUnsafeBytes { raw in
                _ = cached.check(raw)  // fills the cache
                for _ in benchmark.scaledIterations { blackHole(try! cached.verify(raw) { $0.algorithm }) }
            }
        }
    }

    let kid = Array("rs256-1".utf8)
    Benchmark("kid lookup", configuration: .init(scalingFactor: .kilo)) { benchmark in
        kid.withUnsafeBytes { k in
            for _ in benchmark.scaledIterations { blackHole(try! publicKeys.keys.select(kid: k, alg: .rs256)) }
        }
    }

    // The non-crypto stages on the RS256 token: their sum is the overhead over raw OpenSSL.
    let rs = token("RS256")
    let dots = rs.indices.filter { rs[$0] == UInt8(ascii: ".") }
    let payload = Array(rs[(dots[0] + 1)..<dots[1]])
    let claims = UnsafeMutableRawBufferPointer.allocate(byteCount: payload.count, alignment: 1)
    let claimsCount = payload.withUnsafeBytes { Base64URL.decode($0, into: claims.baseAddress!)! }

    Benchmark("base64url decode claims (\(payload.count) chars)", configuration: .init(scalingFactor: .kilo)) {
        benchmark in
        payload.withUnsafeBytes { src in
            for _ in benchmark.scaledIterations { blackHole(Base64URL.decode(src, into: claims.baseAddress!)) }
        }
    }
    Benchmark("JSON validate claims (\(claimsCount) bytes)", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let json = UnsafeRawBufferPointer(rebasing: claims[0..<claimsCount])
        for _ in benchmark.scaledIterations {
            var parser = JSONParser(json)
            blackHole(try! parser.parseDocument())
        }
    }
    Benchmark("JWKSet load (4 public keys)") { benchmark in
        let jwks = fixture("jwks.json")
        for _ in benchmark.scaledIterations { blackHole(try! JWKSet(json: jwks)) }
    }
}
