import XCTest

@_spi(Internals) @testable import JWTKernel

/// The numbered error tables are a frozen ABI (jwtk.h, the CLI's output):
/// these pin every number to its name so a reordering or rename fails here.
final class ErrorCodeTableTests: XCTestCase {
    func testTokenErrorNumbersNeverChange() {
        let expected: [(Int32, String, JWTErrorCode)] = [
            (1, "malformed", .malformed), (2, "too_large", .tooLarge), (3, "unsupported_alg", .unsupportedAlg),
            (4, "alg_not_allowed", .algNotAllowed), (5, "unknown_kid", .unknownKid),
            (6, "key_alg_mismatch", .keyAlgMismatch), (7, "bad_signature", .badSignature), (8, "expired", .expired),
            (9, "not_yet_valid", .notYetValid), (10, "bad_issuer", .badIssuer), (11, "bad_audience", .badAudience),
            (12, "missing_claim", .missingClaim), (13, "bad_claim_type", .badClaimType),
            (14, "crit_unsupported", .critUnsupported), (15, "bad_typ", .badTyp), (16, "bad_nonce", .badNonce),
            (17, "issued_in_future", .issuedInFuture), (18, "unknown_issuer", .unknownIssuer),
            (19, "keys_unavailable", .keysUnavailable), (20, "claim_requirement_failed", .claimRequirementFailed),
            (21, "decryption_failed", .decryptionFailed),
        ]
        XCTAssertEqual(JWTErrorCode.allCases.count, expected.count, "a new code needs a row here (append only)")
        for (number, name, code) in expected {
            XCTAssertEqual(code.number, number, name)
            XCTAssertEqual(code.name, name)
            XCTAssertEqual(JWTErrorCode(number: number), code)
            XCTAssertEqual(JWTErrorCode(name: name), code)
        }
        XCTAssertNil(JWTErrorCode(number: 0), "0 is success, never an error")
        XCTAssertNil(JWTErrorCode(number: Int32(expected.count + 1)))
        XCTAssertNil(JWTErrorCode(name: "Expired"))
    }

    func testKeyErrorNumbersNeverChange() {
        let expected: [(Int32, String, KeyErrorCode)] = [
            (101, "malformed_key", .malformed), (102, "unsupported_key_type", .unsupportedType),
            (103, "weak_key", .weakKey), (104, "compromised_key", .compromisedKey), (105, "wrong_key_use", .wrongUse),
            (106, "ambiguous_kid", .ambiguousKid), (107, "invalid_certificate", .invalidCertificate),
            (108, "declared_alg_mismatch", .algorithmMismatch), (109, "mixed_key_types", .mixedKeyTypes),
            (110, "not_a_key_set", .notAKeySet), (111, "key_resource_failure", .resourceFailure),
        ]
        XCTAssertEqual(KeyErrorCode.allCases.count, expected.count, "a new code needs a row here (append only)")
        for (number, name, code) in expected {
            XCTAssertEqual(code.number, number, name)
            XCTAssertEqual(code.name, name)
        }
        let tokenNames = Set(JWTErrorCode.allCases.map(\.name))
        XCTAssertTrue(
            KeyErrorCode.allCases.allSatisfy { !tokenNames.contains($0.name) }, "one status space, one meaning per name"
        )
    }
}
