import COpenSSL
import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

/// HMAC-SHA-2 and compact-JWS assembly for tests that mint tokens themselves,
/// using the same OpenSSL the kernel links (so no test-only crypto code).
enum AttackSigner {
    static func hmac(_ alg: JWTAlgorithm, key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        let md: OpaquePointer?
        switch alg {
        case .hs256: md = EVP_sha256()
        case .hs384: md = EVP_sha384()
        case .hs512: md = EVP_sha512()
        default: preconditionFailure("\(alg) is not an HMAC algorithm")
        }
        var out = [UInt8](repeating: 0, count: 64)
        var length: UInt32 = 0
        let keyBytes = key.isEmpty ? [0] : key
        _ = HMAC(md, keyBytes, Int32(key.count), data, data.count, &out, &length)
        return Array(out[0..<Int(length)])
    }

    /// `header` and `claims` are JSON text, signed exactly as given.
    static func token(header: String, claims: String, alg: JWTAlgorithm = .hs256, key: [UInt8]) -> String {
        let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        return signingInput + "." + Base64URL.encode(hmac(alg, key: key, Array(signingInput.utf8)))
    }
}
