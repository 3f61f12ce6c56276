/// Why a token was rejected. The raw values are the stable, snake_case codes
/// that the CLI and the C ABI expose; never renumber or rename them.
public enum JWTErrorCode: String, Sendable, CaseIterable {
    case malformed
    case tooLarge = "too_large"
    case unsupportedAlg = "unsupported_alg"
    case algNotAllowed = "alg_not_allowed"
    case unknownKid = "unknown_kid"
    case keyAlgMismatch = "key_alg_mismatch"
    case badSignature = "bad_signature"
    case expired
    case notYetValid = "not_yet_valid"
    case badIssuer = "bad_issuer"
    case badAudience = "bad_audience"
    case missingClaim = "missing_claim"
    case badClaimType = "bad_claim_type"
    case critUnsupported = "crit_unsupported"
    case badTyp = "bad_typ"
    case badNonce = "bad_nonce"
}

/// A verification failure. `detail` is a static string so that building an
/// error never allocates and can never echo token or key bytes back.
public struct JWTError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: JWTErrorCode
    public let detail: StaticString

    @inlinable
    public init(_ code: JWTErrorCode, _ detail: StaticString) {
        self.code = code
        self.detail = detail
    }

    public var message: String { detail.description }
    public var description: String { "\(code.rawValue): \(detail)" }

    public static func == (a: JWTError, b: JWTError) -> Bool {
        a.code == b.code && a.detail.description == b.detail.description
    }
}
