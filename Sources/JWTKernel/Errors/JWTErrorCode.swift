/// Why a token was rejected: a stable number (the C library's status code,
/// `JWTK_*` in jwtk.h) and a stable snake_case name (what the CLI prints).
///
/// The table is append-only: a number is never reused or renumbered and a name
/// never changes; 0 is success and names no error. New codes may come in any
/// release, so a `switch` over codes needs a `default:` branch. The full table
/// with meanings is docs/ERRORS.md.
public struct JWTErrorCode: Hashable, Sendable, CustomStringConvertible {
    /// The code's number: 1 and up, never 0.
    public let number: Int32

    @inlinable
    init(_ number: Int32) { self.number = number }

    public static let malformed = JWTErrorCode(1)
    public static let tooLarge = JWTErrorCode(2)
    public static let unsupportedAlg = JWTErrorCode(3)
    public static let algNotAllowed = JWTErrorCode(4)
    public static let unknownKid = JWTErrorCode(5)
    public static let keyAlgMismatch = JWTErrorCode(6)
    public static let badSignature = JWTErrorCode(7)
    public static let expired = JWTErrorCode(8)
    public static let notYetValid = JWTErrorCode(9)
    public static let badIssuer = JWTErrorCode(10)
    public static let badAudience = JWTErrorCode(11)
    public static let missingClaim = JWTErrorCode(12)
    public static let badClaimType = JWTErrorCode(13)
    public static let critUnsupported = JWTErrorCode(14)
    public static let badTyp = JWTErrorCode(15)
    public static let badNonce = JWTErrorCode(16)
    public static let issuedInFuture = JWTErrorCode(17)
    public static let unknownIssuer = JWTErrorCode(18)
    public static let keysUnavailable = JWTErrorCode(19)
    /// A `ClaimRequirement` of the policy does not hold (HTTP 403, RFC 6750 `insufficient_scope`).
    public static let claimRequirementFailed = JWTErrorCode(20)
    /// A JWE did not decrypt: no key unwrapped its content key, or its tag does not verify. One code, one
    /// detail for every such failure, so that no answer tells an attacker which step failed (no padding oracle).
    public static let decryptionFailed = JWTErrorCode(21)

    /// Index `number - 1`; append only.
    private static let names: [StaticString] = [
        "malformed", "too_large", "unsupported_alg", "alg_not_allowed", "unknown_kid", "key_alg_mismatch",
        "bad_signature", "expired", "not_yet_valid", "bad_issuer", "bad_audience", "missing_claim",
        "bad_claim_type", "crit_unsupported", "bad_typ", "bad_nonce", "issued_in_future", "unknown_issuer",
        "keys_unavailable", "claim_requirement_failed", "decryption_failed",
    ]

    /// Every code, in number order.
    public static let allCases: [JWTErrorCode] = (1...Int32(names.count)).map(JWTErrorCode.init)

    /// The code with this number, if the table has one.
    public init?(number: Int32) {
        guard number >= 1, number <= Int32(Self.names.count) else { return nil }
        self.number = number
    }

    /// The code with this snake_case name, if the table has one.
    public init?(name: String) {
        guard let i = Self.names.firstIndex(where: { $0.description == name }) else { return nil }
        self.number = Int32(i + 1)
    }

    /// The snake_case name, as a static C string (for the C library: no allocation, never freed).
    public var staticName: StaticString { Self.names[Int(number) - 1] }

    /// The snake_case name: `"expired"`, `"bad_signature"`, ...
    public var name: String { staticName.description }

    public var description: String { name }
}
