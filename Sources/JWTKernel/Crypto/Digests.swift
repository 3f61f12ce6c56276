internal import COpenSSL

/// Message digests fetched once. `EVP_sha256()` and friends make OpenSSL 3
/// fetch the implementation again on every init; a pre-fetched `EVP_MD` does not.
enum Digests {
    // Safety: fetched once (Swift runs static initialisers exactly once, thread-safely) and never freed or
    // mutated; OpenSSL allows sharing an EVP_MD across threads. nil only if no provider offers the digest
    // (then context preparation fails and tokens get bad_signature: never a trap inside a host process).
    nonisolated(unsafe) static let sha256 = EVP_MD_fetch(nil, "SHA256", nil)
    nonisolated(unsafe) static let sha384 = EVP_MD_fetch(nil, "SHA384", nil)
    nonisolated(unsafe) static let sha512 = EVP_MD_fetch(nil, "SHA512", nil)

    static func md(for alg: JWTAlgorithm) -> OpaquePointer? {
        switch alg.hashLength {
        case 32: sha256
        case 48: sha384
        case 64: sha512
        default: nil  // EdDSA hashes internally
        }
    }
}
