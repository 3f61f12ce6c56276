import CJWTK
import JWTKernel

/// Names and English texts of every status jwtk.h defines. Positive names come from the core's
/// tables (one source of truth with the CLI); the misuse codes are the C library's own.
enum StatusTable {
    static func name(_ status: Int32) -> StaticString {
        if status == JWTK_OK { return "ok" }
        if let code = JWTErrorCode(number: status) { return code.staticName }
        if let code = KeyErrorCode.all.first(where: { $0.number == status }) { return code.staticName }
        switch status {
        case JWTK_E_NULL: return "null_argument"
        case JWTK_E_HANDLE: return "bad_handle"
        case JWTK_E_LENGTH: return "bad_length"
        case JWTK_E_UTF8: return "bad_utf8"
        case JWTK_E_CONFIG: return "bad_config"
        case JWTK_E_STRUCT_SIZE: return "bad_struct_size"
        case JWTK_E_NO_TOKEN: return "no_token"
        case JWTK_E_UNAVAILABLE: return "not_available"
        case JWTK_E_RANGE: return "out_of_range"
        case JWTK_E_SYNTAX: return "bad_syntax"
        default: return "unknown"
        }
    }

    /// docs/ERRORS.md's meanings, shortened; never any token or key bytes.
    static func text(_ status: Int32) -> StaticString {
        switch status {
        case JWTK_OK: return "the token is valid"
        case JWTK_MALFORMED: return "the token is not a well-formed compact JWS/JWT"
        case JWTK_TOO_LARGE: return "the token is longer than the size limit"
        case JWTK_UNSUPPORTED_ALG: return "the token's alg is none or not supported"
        case JWTK_ALG_NOT_ALLOWED: return "the token's alg is not allowed by the policy"
        case JWTK_UNKNOWN_KID: return "no trusted key matches the token's kid"
        case JWTK_KEY_ALG_MISMATCH: return "the key named by kid may not verify this alg"
        case JWTK_BAD_SIGNATURE: return "the signature does not verify"
        case JWTK_EXPIRED: return "the token has expired"
        case JWTK_NOT_YET_VALID: return "the token is not valid yet"
        case JWTK_BAD_ISSUER: return "the issuer is not accepted"
        case JWTK_BAD_AUDIENCE: return "the audience is not accepted"
        case JWTK_MISSING_CLAIM: return "a required claim is missing"
        case JWTK_BAD_CLAIM_TYPE: return "a registered claim has the wrong JSON type"
        case JWTK_CRIT_UNSUPPORTED: return "the header has crit, which is not supported"
        case JWTK_BAD_TYP: return "the header typ is absent or not the expected type"
        case JWTK_BAD_NONCE: return "the nonce does not match"
        case JWTK_ISSUED_IN_FUTURE: return "the token was issued in the future"
        case JWTK_UNKNOWN_ISSUER: return "no keys and no configuration for the token's issuer"
        case JWTK_KEYS_UNAVAILABLE: return "no keys could be loaded for the token's issuer"
        case JWTK_CLAIM_REQUIREMENT_FAILED: return "a claim does not meet the verifier's claim requirements"
        case JWTK_DECRYPTION_FAILED: return "the encrypted token does not decrypt"
        case JWTK_MALFORMED_KEY: return "a key is malformed"
        case JWTK_UNSUPPORTED_KEY_TYPE: return "a key type, curve or alg is not supported"
        case JWTK_WEAK_KEY: return "a key is too weak"
        case JWTK_COMPROMISED_KEY: return "a key has a known-broken generator (ROCA)"
        case JWTK_WRONG_KEY_USE: return "a key is not meant for signature verification"
        case JWTK_AMBIGUOUS_KID: return "several keys share a kid"
        case JWTK_INVALID_CERTIFICATE: return "a certificate does not parse or holds no usable key"
        case JWTK_DECLARED_ALG_MISMATCH: return "a key's declared alg, kty or crv contradicts its material"
        case JWTK_MIXED_KEY_TYPES: return "an HMAC secret in a key set that holds public keys"
        case JWTK_NOT_A_KEY_SET: return "the document is not a key set, or holds no usable key"
        case JWTK_KEY_RESOURCE_FAILURE: return "OpenSSL could not build a key"
        case JWTK_E_NULL: return "a required pointer argument is NULL"
        case JWTK_E_HANDLE: return "not a live handle of the expected kind"
        case JWTK_E_LENGTH: return "a length is zero or above its limit"
        case JWTK_E_UTF8: return "a text argument is not valid UTF-8"
        case JWTK_E_CONFIG: return "the verifier configuration is invalid"
        case JWTK_E_STRUCT_SIZE: return "struct_size is smaller than this version's structure"
        case JWTK_E_NO_TOKEN: return "no token was verified successfully on this context"
        case JWTK_E_UNAVAILABLE: return "not available in this build"
        case JWTK_E_RANGE: return "a numeric argument is out of range"
        case JWTK_E_SYNTAX: return "a text argument does not follow its grammar (a JSON Pointer)"
        default: return "unknown status"
        }
    }

    /// Token errors by the core's table (`JWTErrorCode.httpStatus`: 401; 403 for a wrong audience or an unmet
    /// claim requirement; 503 when no keys could ever be loaded); 200 for success; 500 for key errors, misuse
    /// and unknown codes.
    static func http(_ status: Int32) -> Int32 {
        if status == JWTK_OK { return 200 }
        guard let code = JWTErrorCode(number: status) else { return 500 }
        return Int32(code.httpStatus)
    }

    /// RFC 6750 section 3.1's error for WWW-Authenticate, by the core's table (`JWTErrorCode.staticBearerError`:
    /// `invalid_token`, `insufficient_scope` for an unmet claim requirement, and why); nil for anything but a
    /// token error, and for `keys_unavailable`.
    static func bearerError(_ status: Int32) -> StaticString? {
        JWTErrorCode(number: status)?.staticBearerError
    }
}

extension KeyErrorCode {
    /// `allCases` by another name, so the lookup above reads plainly.
    static var all: [KeyErrorCode] { allCases }
}
