import XCTest

@_spi(Internals) @testable import JWTKernel

/// Keys without `kid` (a PEM key, a JWK without `kid`): candidates for any token when no key has the
/// token's `kid`, their own type and `alg` still pinning the algorithm; several are tried, at most
/// `JWKSet.maxKidlessTries`. Fixture keys and tokens as in `KeySetTests`.
final class KidlessKeyTests: XCTestCase {
    /// A fixture JWK with its `kid` removed.
    static func kidless(_ name: String) throws -> [String: Any] {
        var jwk = try KeySetTests.jwk(name)
        jwk["kid"] = nil
        return jwk
    }

    static func verify(_ token: String, _ keys: JWKSet) throws -> VerifiedJWT {
        try KeySetTests.verifier(keys).verify(try KeySetTests.token(token))
    }

    func testAKidlessKeyVerifiesTokensWhoseKidNoKeyHas() throws {
        let set = try KeyKit.set([try Self.kidless("p256a")])
        let jwt = try Self.verify("es256A", set)
        XCTAssertEqual(jwt.kid, "ec-a")
        XCTAssertNil(jwt.key.kid)
        XCTAssertNoThrow(try Self.verify("es256ANoKid", set))
        // A token the key did not sign still fails: with a kid no key has, unknown_kid (so a source refetches).
        try KeySetTests.expect(.unknownKid, "es256B", with: set)
    }

    func testAPEMKeyVerifiesTokensWithAKid() throws {
        let set = JWKSet(keys: [try VerificationKey(pem: try KeySetTests.pem("p256aPublicKey"))])
        XCTAssertEqual(try Self.verify("es256A", set).kid, "ec-a")
        XCTAssertEqual(try Self.verify("es256UnknownKid", set).kid, "no-such-key")
    }

    func testTheKeysOwnTypeAndAlgStillPinTheAlgorithm() throws {
        // A kid-less RSA key pinned to RS256: a PS256 token it signed is refused, RS256 verifies.
        var rsa = try KeySetTests.jwk("rsa2048")
        rsa["kid"] = nil
        let pinned = try KeyKit.set([rsa])
        XCTAssertNoThrow(try Self.verify("rs256", pinned))
        try KeySetTests.expect(.unknownKid, "ps256KidRSA2048", with: pinned)
        // An EC key is no candidate for an HS256 token, nor an HMAC secret for ES256.
        try KeySetTests.expect(.unknownKid, "hs256", with: try KeyKit.set([try Self.kidless("p256a")]))
        try KeySetTests.expect(
            .unknownKid, "es256A", with: JWKSet(keys: [try VerificationKey(hmacSecret: Array(repeating: 7, count: 32))])
        )
    }

    func testAKeyNamedByKidIsTheOnlyKeyTried() throws {
        // kid "ec-a" names p256a's twin under the wrong alg: key_alg_mismatch, no fall back to the kid-less key.
        var named = try KeySetTests.jwk("p256b")
        named["kid"] = "ec-a"
        let set = JWKSet(keys: [try KeyKit.key(named), try KeyKit.key(try Self.kidless("p256a"))])
        try KeySetTests.expect(.badSignature, "es256A", with: set)
        try KeySetTests.expect(.keyAlgMismatch, "rs256KidECA", with: set)
    }

    func testSeveralKidlessKeysAreTriedInOrderUpToTheBound() throws {
        let b = try Self.kidless("p256b"), a = try Self.kidless("p256a")
        XCTAssertEqual(JWKSet.maxKidlessTries, 4)
        // The signer fourth: tried and found.
        let four = JWKSet(keys: try [b, b, b, a].map(KeyKit.key))
        XCTAssertEqual(four.keys.count, 4)
        XCTAssertNoThrow(try Self.verify("es256A", four))
        XCTAssertNoThrow(try Self.verify("es256ANoKid", four))
        // The signer fifth: never tried.
        let five = JWKSet(keys: try [b, b, b, b, a].map(KeyKit.key))
        for (token, code) in [("es256A", JWTErrorCode.unknownKid), ("es256ANoKid", .badSignature)] {
            XCTAssertThrowsError(try Self.verify(token, five)) { error in
                XCTAssertEqual((error as? JWTError)?.code, code)
                XCTAssertTrue("\(error)".contains("first 4"), "\(error)")
            }
        }
        // Keys of another type do not count against the bound.
        var rsa = try KeySetTests.jwk("rsa2048")
        rsa["kid"] = nil
        let mixed = JWKSet(keys: try [rsa, rsa, rsa, rsa, b, a].map(KeyKit.key))
        XCTAssertNoThrow(try Self.verify("es256A", mixed))
    }

    func testAKidlessKeyThatVerifiesCostsNoRefetchButAnUnverifiedNewKidStillReportsIt() throws {
        final class Listener: UnknownKidListener, @unchecked Sendable {
            let calls = AtomicCounter()
            func unknownKid() { calls.increment() }
        }
        let iss = "https://a.example"
        let store = KeyStore()
        let listener = Listener()
        store.register(issuer: iss, unknownKidListener: listener)
        store.publish(
            JWKSet(keys: [try VerificationKey(hmacSecret: StoreKit.secret("pem"), algorithm: .hs256)]), forIssuer: iss)
        let v = MultiIssuerVerifier(
            store: store, issuers: [IssuerConfiguration(issuer: iss, policy: ClaimsPolicy(audiences: ["app"]))])
        XCTAssertNil(v.check(StoreKit.token(kid: "any-kid", iss: iss, secretOf: "pem")))
        XCTAssertEqual(listener.calls.current, 0, "the kid-less key verified: nothing to refetch")
        XCTAssertEqual(v.check(StoreKit.token(kid: "rotated", iss: iss))?.code, .unknownKid)
        XCTAssertEqual(listener.calls.current, 1, "a kid no key has and the kid-less key did not verify")
    }
}
