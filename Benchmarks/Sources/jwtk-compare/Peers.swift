import CBenchPeers
import Foundation
import JWTKit

/// Owns a C handle so runners can capture it across threads (the C verify calls are const).
final class CHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    private let release: (OpaquePointer) -> Void
    init?(_ pointer: OpaquePointer?, release: @escaping (OpaquePointer) -> Void) {
        guard let pointer else { return nil }
        self.pointer = pointer
        self.release = release
    }
    deinit { release(pointer) }
}

enum OpenSSLRaw {
    static func runner(_ f: Fixtures, alg: String, token: String) throws -> Runner? {
        let key = try f.keyMaterial(alg)
        let handle = CHandle(cb_ossl_new(alg, token, token.utf8.count, key, key.count), release: cb_ossl_free)
        guard let handle else { throw BenchError("openssl-raw setup failed for \(alg)") }
        return { n in
            var ok = 0
            for _ in 0..<n { ok += Int(cb_ossl_verify(handle.pointer)) }
            return ok
        }
    }
}

enum LibJWT {
    static func runner(_ f: Fixtures, alg: String, token: String) throws -> Runner? {
        guard cb_libjwt_supports(alg) != 0 else { return nil }
        let key = try f.keyMaterial(alg)
        let handle = CHandle(
            cb_libjwt_new(token, token.utf8.count, key, key.count, f.iss, f.aud, f.now), release: cb_libjwt_free)
        guard let handle else { throw BenchError("libjwt setup failed") }
        return { n in
            var ok = 0
            for _ in 0..<n { ok += Int(cb_libjwt_verify(handle.pointer)) }
            return ok
        }
    }
}

/// jwt-kit 5.8 as documented for Sign in with Apple: a JWTKeyCollection loaded from the
/// JWKS (plus the HMAC key, which a JWKS endpoint never serves), and
/// `verify(_:as: AppleIdentityToken.self, expectedAudience:)`, which decodes the claims
/// and checks signature, iss, aud and exp (against the real clock: exp is in 2100).
/// The async loop runs on the cooperative pool, as it would inside a server.
enum JWTKitPeer {
    static func keys(_ f: Fixtures) throws -> JWTKeyCollection {
        let jwks = try f.text("jwks.json")
        let secret = try f.bytes("hs256.key")
        return try blockingAwait {
            let keys = JWTKeyCollection()
            try await keys.add(jwksJSON: jwks)
            await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256, kid: "hs256-1")
            return keys
        }
    }

    static func runner(_ keys: JWTKeyCollection, _ f: Fixtures, token: String) -> Runner {
        let aud = f.aud
        return { n in
            (try? blockingAwait {
                var ok = 0
                for _ in 0..<n {
                    if (try? await keys.verify(token, as: AppleIdentityToken.self, expectedAudience: aud)) != nil {
                        ok += 1
                    }
                }
                return ok
            }) ?? 0
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
