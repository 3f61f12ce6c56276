internal import COpenSSL

/// An HMAC secret with its precomputed inner/outer states for each HS
/// algorithm the key may verify. Owns its copy of the secret and wipes it
/// when released.
// Safety: @unchecked because of the raw buffer `secret`; it is written only in init and deinit.
final class HMACSecret: @unchecked Sendable {
    private let secret: UnsafeMutableRawBufferPointer
    private let hs256: HMACKey?, hs384: HMACKey?, hs512: HMACKey?

    init(_ bytes: [UInt8], algorithms: AlgorithmSet) {
        secret = .allocate(byteCount: max(bytes.count, 1), alignment: 1)
        secret.copyBytes(from: bytes)
        hs256 = algorithms.contains(.hs256) ? HMACKey(secret: bytes, hashLength: 32) : nil
        hs384 = algorithms.contains(.hs384) ? HMACKey(secret: bytes, hashLength: 48) : nil
        hs512 = algorithms.contains(.hs512) ? HMACKey(secret: bytes, hashLength: 64) : nil
        count = bytes.count
    }

    let count: Int

    deinit {
        OPENSSL_cleanse(secret.baseAddress, secret.count)
        secret.deallocate()
    }

    /// Verifies an HMAC tag with the precomputed states for `alg`, used in place
    /// (returning the `HMACKey` by value copied both states once more per token).
    /// Truncated tags are refused: the tag is the full hash output (RFC 7518 §3.2).
    func verify(_ alg: JWTAlgorithm, _ message: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer) -> Bool {
        switch alg {
        case .hs256: hs256?.verify(message, tag: tag) ?? false
        case .hs384: hs384?.verify(message, tag: tag) ?? false
        case .hs512: hs512?.verify(message, tag: tag) ?? false
        default: false
        }
    }

    /// Same secret bytes, compared in constant time.
    func hasSameSecret(as other: HMACSecret) -> Bool {
        count == other.count && CRYPTO_memcmp(secret.baseAddress, other.secret.baseAddress, count) == 0
    }
}
