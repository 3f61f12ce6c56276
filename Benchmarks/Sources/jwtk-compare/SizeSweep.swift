import CBenchPeers
import Foundation
@_spi(Internals) import JWTKernel

/// Cost against token size: HS256 tokens whose claims grow from 0.3 to 64 KB (a `groups`
/// array of GUIDs, as identity providers put in large tokens), jwt-kernel against the
/// openssl-floor on each. Parsing is linear if ns per token byte stays flat.
enum SizeSweep {
    static let claimSizes = [300, 1024, 4096, 16384, 65536]

    struct Point {
        let claimsBytes: Int
        let tokenBytes: Int
        let kernel: Measurement
        let floor: Measurement?
        var kernelNsPerByte: Double { 1e9 / kernel.opsPerSecond / Double(tokenBytes) }
        var floorNsPerByte: Double? { floor.map { 1e9 / $0.opsPerSecond / Double(tokenBytes) } }
    }

    static func token(claimsBytes: Int, _ f: Fixtures) throws -> String {
        var claims =
            "{\"iss\":\"\(f.iss)\",\"aud\":\"\(f.aud)\",\"sub\":\"001234.5f3b9c1e2d4a\",\"exp\":\(f.now + 3600),"
            + "\"iat\":\(f.now - 60),\"groups\":["
        var i = 0
        while claims.utf8.count + 42 < claimsBytes {
            claims += (i == 0 ? "" : ",") + "\"\(String(format: "%08x", i))-5b6a-7980-a1b2-c3d4e5f60718\""
            i += 1
        }
        claims += "]}"
        let input =
            Base64URL.encode(Array("{\"alg\":\"HS256\",\"kid\":\"hs256-1\",\"typ\":\"JWT\"}".utf8)) + "."
            + Base64URL.encode(Array(claims.utf8))
        let key = try f.keyMaterial("HS256")
        var mac = [UInt8](repeating: 0, count: 32)
        guard cb_hs256_sign(key, key.count, input, input.utf8.count, &mac) == 1 else { throw BenchError("HMAC failed") }
        return input + "." + Base64URL.encode(mac)
    }

    static func run(_ f: Fixtures, seconds: Double, rounds: Int) throws -> [Point] {
        let secret = try VerificationKey(hmacSecret: try f.keyMaterial("HS256"), kid: "hs256-1", algorithm: .hs256)
        let verifier = JWTVerifier(
            keys: JWKSet(keys: [secret]), policy: ClaimsPolicy(issuers: [f.iss], audiences: [f.aud]),
            clock: FixedClock(f.now), maxTokenSize: 1 << 20)
        var points: [Point] = []
        for size in claimSizes {
            let token = try token(claimsBytes: size, f)
            let bytes = Array(token.utf8)
            let kernel = Timing { n in
                bytes.withUnsafeBytes { raw in
                    var ok = 0
                    for _ in 0..<n where verifier.check(raw) == nil { ok += 1 }
                    return ok
                }
            }
            let floor = try OpenSSLFloor.runner(f, alg: "HS256", token: token).map { Timing($0) }
            for _ in 0..<rounds {
                kernel.round(seconds: seconds / Double(rounds))
                floor?.round(seconds: seconds / Double(rounds))
            }
            points.append(
                Point(
                    claimsBytes: size, tokenBytes: bytes.count, kernel: kernel.result(countAllocs: false),
                    floor: floor?.result(countAllocs: false)))
        }
        return points
    }
}
