import COpenSSL
import Foundation

@_spi(Internals) @testable import JWTKernel

/// Mints HS256 tokens inside tests with OpenSSL's one-shot `HMAC()` — an
/// implementation independent of the kernel's own precomputed-state HMAC.
struct HS256Minter {
    let secret: [UInt8]
    let kid: String

    func token(claims: String, header: String? = nil) -> String {
        let h = header ?? #"{"alg":"HS256","typ":"JWT","kid":"\#(kid)"}"#
        let input = Base64URL.encode(Array(h.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        var mac = [UInt8](repeating: 0, count: 32)
        var len: UInt32 = 0
        _ = HMAC(EVP_sha256(), secret, Int32(secret.count), Array(input.utf8), input.utf8.count, &mac, &len)
        return input + "." + Base64URL.encode(mac)
    }

    var keySet: JWKSet {
        get throws { JWKSet(keys: [try VerificationKey(hmacSecret: secret, kid: kid, algorithm: .hs256)]) }
    }
}
