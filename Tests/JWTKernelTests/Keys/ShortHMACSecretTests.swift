import XCTest

@_spi(Internals) @testable import JWTKernel

/// HMAC secrets shorter than their hash output (RFC 7518 §3.2): refused by default; loaded, each with
/// one warning naming the key and the rule, when the load allows them (`allowShortHMACSecrets`, the
/// one option every surface names the same way).
final class ShortHMACSecretTests: XCTestCase {
    /// NGINX Plus's admin guide example secret: 12 bytes.
    static let secret = Array("fantasticjwt".utf8)

    static func jwks(_ members: String = "") -> [UInt8] {
        Array(#"{"keys":[{"kty":"oct","kid":"0001","k":"\#(Base64URL.encode(secret))"\#(members)}]}"#.utf8)
    }

    func testRefusedByDefault() throws {
        let set = try JWKSet(json: Self.jwks())
        XCTAssertTrue(set.keys.isEmpty)
        XCTAssertEqual(set.rejected.first?.code, .weakKey)
        XCTAssertEqual(set.rejected.first?.kid, "0001")
        XCTAssertTrue(set.warnings.isEmpty)
        XCTAssertEqual(try KeyDocument(Self.jwks()).keySet().keys.count, 0)
    }

    func testAllowedTheKeyLoadsWithOneWarningNamingItAndTheRule() throws {
        let set = try JWKSet(json: Self.jwks(), allowShortHMACSecrets: true)
        XCTAssertEqual(set.keys.map(\.kid), ["0001"])
        XCTAssertEqual(set.keys.first?.algorithms, .hmac, "no alg declared: the HMAC family, as NGINX Plus")
        XCTAssertEqual(set.warnings.count, 1)
        let warning = try XCTUnwrap(set.warnings.first)
        XCTAssertEqual(warning.kid, "0001")
        XCTAssertEqual(warning.code, .weakKey)
        XCTAssertTrue(warning.reason.contains("12 bytes") && warning.reason.contains("RFC 7518"), warning.reason)
        // The same through KeyDocument (the C library's and the CLI's reader).
        XCTAssertEqual(try KeyDocument(Self.jwks()).keySet(allowShortHMACSecrets: true).warnings.count, 1)

        let minter = HS256Minter(secret: Self.secret, kid: "0001")
        let verifier = JWTVerifier(
            keys: set, policy: ClaimsPolicy(requireExpiration: false), clock: FixedClock(1_700_000_000))
        XCTAssertNil(verifier.check(minter.token(claims: #"{"sub":"u"}"#)))
        let other = HS256Minter(secret: Array("fantasticjwu".utf8), kid: "0001")
        XCTAssertEqual(verifier.check(other.token(claims: #"{"sub":"u"}"#))?.code, .badSignature)
    }

    func testADeclaredAlgStillPinsAndAnEmptySecretIsRefusedAlways() throws {
        let pinned = try JWKSet(json: Self.jwks(#","alg":"HS256""#), allowShortHMACSecrets: true)
        XCTAssertEqual(pinned.keys.first?.algorithms, AlgorithmSet([.hs256]))
        XCTAssertEqual(pinned.warnings.count, 1)
        XCTAssertEqual(
            try JWKSet(json: Self.jwks(#","alg":"RS256""#), allowShortHMACSecrets: true).rejected.first?.code,
            .algorithmMismatch)
        XCTAssertThrowsError(try VerificationKey(hmacSecret: [], kid: "e", allowShortSecret: true)) { error in
            XCTAssertEqual((error as? KeyError)?.code, .weakKey)
        }
    }

    func testLongSecretsGetNoWarningForWhatTheirLengthAllows() throws {
        let long = Array(repeating: UInt8(7), count: 64)
        let set = JWKSet(keys: [try VerificationKey(hmacSecret: long, kid: "long", allowShortSecret: true)])
        XCTAssertEqual(set.keys.first?.algorithms, .hmac)
        XCTAssertTrue(set.warnings.isEmpty)
        // A key without kid is named by its index.
        let unnamed = JWKSet(keys: [try VerificationKey(hmacSecret: Self.secret, allowShortSecret: true)])
        XCTAssertEqual(unnamed.warnings.first?.kid, "#0")
    }
}
