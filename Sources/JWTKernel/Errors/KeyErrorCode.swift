/// Why a key was refused, as a stable number and snake_case name; the
/// human-readable reason is in `KeyError.reason`.
///
/// Numbers start at 101 so they never collide with token error codes (1-99)
/// in the C library's one status space. Append-only, like `JWTErrorCode`:
/// a `switch` over codes needs a `default:` branch. See docs/ERRORS.md.
public struct KeyErrorCode: Hashable, Sendable, CustomStringConvertible {
    public let number: Int32

    init(_ number: Int32) { self.number = number }

    /// Not a key: bad JSON, a member of the wrong type or encoding, a missing member, an invalid point or modulus.
    public static let malformed = KeyErrorCode(101)
    /// A key type, curve or algorithm JWS verification does not use.
    public static let unsupportedType = KeyErrorCode(102)
    /// Too small to be safe: RSA under 2048 bits, an HMAC secret shorter than its hash output.
    public static let weakKey = KeyErrorCode(103)
    /// A key with a known-broken generator: the ROCA fingerprint (CVE-2017-15361).
    public static let compromisedKey = KeyErrorCode(104)
    /// `use` is not `sig`, or `key_ops` does not allow `verify`.
    public static let wrongUse = KeyErrorCode(105)
    /// Several keys share one `kid` (and their algorithms overlap).
    public static let ambiguousKid = KeyErrorCode(106)
    /// An `x5c` or PEM certificate that does not parse or carries no usable key.
    public static let invalidCertificate = KeyErrorCode(107)
    /// The declared `alg`, `kty` or `crv` does not fit the key material.
    public static let algorithmMismatch = KeyErrorCode(108)
    /// An HMAC secret published next to public keys (a leaked secret, or algorithm confusion waiting to happen).
    public static let mixedKeyTypes = KeyErrorCode(109)
    /// The document is not a JWKS, a JWK, a `{kid: PEM}` map or a PEM key.
    public static let notAKeySet = KeyErrorCode(110)
    /// OpenSSL could not allocate or build the key.
    public static let resourceFailure = KeyErrorCode(111)

    private static let names: [StaticString] = [
        "malformed_key", "unsupported_key_type", "weak_key", "compromised_key", "wrong_key_use", "ambiguous_kid",
        "invalid_certificate", "declared_alg_mismatch", "mixed_key_types", "not_a_key_set", "key_resource_failure",
    ]

    /// Every code, in number order.
    public static let allCases: [KeyErrorCode] = (0..<Int32(names.count)).map { KeyErrorCode(101 + $0) }

    public var staticName: StaticString { Self.names[Int(number) - 101] }
    public var name: String { staticName.description }
    public var description: String { name }
}
