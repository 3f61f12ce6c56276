import CJWTK
import JWTKernel
import XCTest

@testable import JWTKernelC

/// jwtk.h's status numbers against the Swift tables: one table, so every token and key code the
/// core defines has its #define with the same number, and the library reports the core's name.
final class StatusTableTests: XCTestCase {
    /// Every positive #define of jwtk.h, by the core's snake_case name.
    private static let header: [String: Int32] = [
        "malformed": JWTK_MALFORMED, "too_large": JWTK_TOO_LARGE, "unsupported_alg": JWTK_UNSUPPORTED_ALG,
        "alg_not_allowed": JWTK_ALG_NOT_ALLOWED, "unknown_kid": JWTK_UNKNOWN_KID,
        "key_alg_mismatch": JWTK_KEY_ALG_MISMATCH, "bad_signature": JWTK_BAD_SIGNATURE, "expired": JWTK_EXPIRED,
        "not_yet_valid": JWTK_NOT_YET_VALID, "bad_issuer": JWTK_BAD_ISSUER, "bad_audience": JWTK_BAD_AUDIENCE,
        "missing_claim": JWTK_MISSING_CLAIM, "bad_claim_type": JWTK_BAD_CLAIM_TYPE,
        "crit_unsupported": JWTK_CRIT_UNSUPPORTED, "bad_typ": JWTK_BAD_TYP, "bad_nonce": JWTK_BAD_NONCE,
        "issued_in_future": JWTK_ISSUED_IN_FUTURE, "unknown_issuer": JWTK_UNKNOWN_ISSUER,
        "keys_unavailable": JWTK_KEYS_UNAVAILABLE, "claim_requirement_failed": JWTK_CLAIM_REQUIREMENT_FAILED,
        "decryption_failed": JWTK_DECRYPTION_FAILED,
        "malformed_key": JWTK_MALFORMED_KEY, "unsupported_key_type": JWTK_UNSUPPORTED_KEY_TYPE,
        "weak_key": JWTK_WEAK_KEY, "compromised_key": JWTK_COMPROMISED_KEY, "wrong_key_use": JWTK_WRONG_KEY_USE,
        "ambiguous_kid": JWTK_AMBIGUOUS_KID, "invalid_certificate": JWTK_INVALID_CERTIFICATE,
        "declared_alg_mismatch": JWTK_DECLARED_ALG_MISMATCH, "mixed_key_types": JWTK_MIXED_KEY_TYPES,
        "not_a_key_set": JWTK_NOT_A_KEY_SET, "key_resource_failure": JWTK_KEY_RESOURCE_FAILURE,
    ]

    func testEveryCoreCodeHasItsDefineWithTheSameNumber() {
        let core =
            JWTErrorCode.allCases.map { ($0.name, $0.number) } + KeyErrorCode.allCases.map { ($0.name, $0.number) }
        XCTAssertEqual(core.count, Self.header.count, "the header defines every core code, and no other positive code")
        for (name, number) in core {
            XCTAssertEqual(Self.header[name], number, name)
        }
    }

    func testTheLibraryReportsTheCoreNames() {
        for (name, number) in Self.header {
            XCTAssertEqual(String(cString: jwtk_status_name(number)!), name)
            XCTAssertFalse(String(cString: jwtk_errstr(number)!).isEmpty, name)
        }
    }

    func testMisuseCodesAreNegativeAndDistinct() {
        let misuse = [
            JWTK_E_NULL, JWTK_E_HANDLE, JWTK_E_LENGTH, JWTK_E_UTF8, JWTK_E_CONFIG, JWTK_E_STRUCT_SIZE,
            JWTK_E_NO_TOKEN, JWTK_E_UNAVAILABLE, JWTK_E_RANGE, JWTK_E_SYNTAX,
        ]
        XCTAssertEqual(Set(misuse).count, misuse.count)
        for code in misuse {
            XCTAssertLessThan(code, 0)
            XCTAssertNotEqual(String(cString: jwtk_status_name(code)!), "unknown")
        }
    }

    /// An unmet claim requirement is a genuine token without the privilege: 403 and insufficient_scope,
    /// while every other token error keeps its mapping.
    func testClaimRequirementFailureIs403InsufficientScope() {
        XCTAssertEqual(jwtk_status_http(JWTK_CLAIM_REQUIREMENT_FAILED), 403)
        XCTAssertEqual(String(cString: jwtk_status_bearer_error(JWTK_CLAIM_REQUIREMENT_FAILED)!), "insufficient_scope")
        XCTAssertEqual(String(cString: jwtk_status_bearer_error(JWTK_EXPIRED)!), "invalid_token")
        XCTAssertEqual(jwtk_status_http(JWTK_EXPIRED), 401)
        XCTAssertNil(jwtk_status_bearer_error(JWTK_KEYS_UNAVAILABLE))
        XCTAssertEqual(jwtk_status_http(JWTK_DECRYPTION_FAILED), 401)
        XCTAssertEqual(String(cString: jwtk_status_bearer_error(JWTK_DECRYPTION_FAILED)!), "invalid_token")
        XCTAssertNil(jwtk_status_bearer_error(22))
        XCTAssertEqual(jwtk_status_http(22), 500, "the next number is unknown until it is appended")
    }

    func testVersionMatchesTheHeader() {
        XCTAssertEqual(jwtk_version_number(), JWTK_VERSION_NUMBER)
        XCTAssertEqual(String(cString: jwtk_version()!), JWTK_VERSION)
    }

    /// The C strings the library hands out are literals; each must end where Swift says it does.
    func testStaticStringsAreNULTerminated() {
        for code in JWTErrorCode.allCases {
            XCTAssertEqual(strlen(jwtk_status_name(code.number)!), code.staticName.utf8CodeUnitCount)
        }
    }
}
