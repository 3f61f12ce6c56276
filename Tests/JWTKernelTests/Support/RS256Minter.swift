import COpenSSL
import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

/// Mints RS256 tokens inside tests with an OpenSSL-generated RSA key (a PEM fixture) and OpenSSL's
/// `EVP_DigestSign` (RSASSA-PKCS1-v1_5, SHA-256), so the kernel verifies a signature it did not make.
final class RS256Minter {
    let privateKey: OpaquePointer
    let publicPEM: String
    let kid: String

    /// `directory` under Fixtures holds `rsa-2048.key.pem` and `rsa-2048.pub.pem`.
    init(fixture directory: String, kid: String) throws {
        let pem = Array(try Fixtures.data("\(directory)/rsa-2048.key.pem"))
        privateKey = try pem.withUnsafeBytes { raw in
            let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count))!
            defer { BIO_free(bio) }
            return try XCTUnwrap(PEM_read_bio_PrivateKey(bio, nil, nil, nil), "\(directory): private key")
        }
        publicPEM = try Fixtures.text("\(directory)/rsa-2048.pub.pem")
        self.kid = kid
    }

    deinit { EVP_PKEY_free(privateKey) }

    /// The key set that verifies this minter's tokens (the public half, pinned to RS256).
    var keySet: JWKSet {
        get throws { JWKSet(keys: [try VerificationKey(pem: publicPEM, kid: kid, algorithm: .rs256)]) }
    }

    /// `claims` is JSON text, signed exactly as given.
    func token(claims: String, header: String? = nil) -> String {
        let h = header ?? #"{"alg":"RS256","kid":"\#(kid)"}"#
        let input = Array((Base64URL.encode(Array(h.utf8)) + "." + Base64URL.encode(Array(claims.utf8))).utf8)
        let ctx = EVP_MD_CTX_new()!
        defer { EVP_MD_CTX_free(ctx) }
        precondition(EVP_DigestSignInit(ctx, nil, EVP_sha256(), nil, privateKey) == 1, "EVP_DigestSignInit")
        var length = 0
        precondition(EVP_DigestSign(ctx, nil, &length, input, input.count) == 1, "EVP_DigestSign size")
        var signature = [UInt8](repeating: 0, count: length)
        precondition(EVP_DigestSign(ctx, &signature, &length, input, input.count) == 1, "EVP_DigestSign")
        return String(decoding: input, as: UTF8.self) + "." + Base64URL.encode(Array(signature.prefix(length)))
    }
}
