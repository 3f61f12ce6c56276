import XCTest

@_spi(Internals) @testable import JWTKernel

/// A failed claim requirement is named by its pointer and operator, never by a value (the policy's or
/// the token's), on every verifier path; labels are prepared once and shared.
final class ClaimRequirementLabelTests: XCTestCase {
    let now: Int64 = 1_700_000_000
    let secret = [UInt8](repeating: 0x5A, count: 32)

    func failure(_ claims: String, _ requirements: [ClaimRequirement]) -> JWTError? {
        let keys = JWKSet(keys: [try! VerificationKey(hmacSecret: secret, kid: "k")])
        let policy = ClaimsPolicy(requireExpiration: false, claimRequirements: requirements)
        let verifier = JWTVerifier(keys: keys, policy: policy, clock: FixedClock(now))
        return verifier.check(AttackSigner.token(header: #"{"alg":"HS256","kid":"k"}"#, claims: claims, key: secret))
    }

    func testEachOperatorIsNamed() throws {
        let cases: [(ClaimRequirement, String, String)] = [
            (
                try ClaimRequirement("/role", .equals("admin")), #"{"role":"user-secret-value"}"#,
                "claim requirement /role equals: a claim does not equal its required value"
            ),
            (
                try ClaimRequirement("/tier", .oneOf(["gold", "silver"])), #"{"tier":"bronze"}"#,
                "claim requirement /tier one_of: a claim is none of its accepted values"
            ),
            (
                try ClaimRequirement("/realm_access/roles", .containsAll(["a", "b"])),
                #"{"realm_access":{"roles":["a"]}}"#,
                "claim requirement /realm_access/roles contains_all: a claim lacks a value it must contain"
            ),
            (
                try ClaimRequirement("/scope", .containsAny(["write"])), #"{"scope":"read"}"#,
                "claim requirement /scope contains_any: a claim contains none of its accepted values"
            ),
            (
                try ClaimRequirement("/tenant", .equals("acme")), #"{"sub":"x"}"#,
                "claim requirement /tenant equals: a claim a requirement names is absent"
            ),
        ]
        for (requirement, claims, want) in cases {
            let error = try XCTUnwrap(failure(claims, [requirement]), claims)
            XCTAssertEqual(error.code, .claimRequirementFailed)
            XCTAssertEqual(error.message, want)
            XCTAssertEqual(error.description, "claim_requirement_failed: " + want)
        }
    }

    func testNeverTheValues() throws {
        let error = try XCTUnwrap(
            failure(#"{"role":"user-secret-value"}"#, [try ClaimRequirement("/role", .equals("admin"))]))
        XCTAssertFalse(error.message.contains("user-secret-value"), "the token's value")
        XCTAssertFalse(error.message.contains("admin"), "the policy's value")
    }

    /// The second requirement fails: it is the one named.
    func testTheFailingOneIsNamed() throws {
        let rs = [try ClaimRequirement("/a", .equals("x")), try ClaimRequirement("/b", .equals("y"))]
        XCTAssertEqual(failure(#"{"a":"x","b":"z"}"#, rs)?.requirement?.description, "/b equals")
    }

    /// Compiling the same requirement again reuses its label (memory grows only with distinct ones).
    func testLabelsAreInterned() throws {
        let r = try ClaimRequirement("/interned~1name", .containsAny(["v"]))
        XCTAssertEqual(ClaimRequirementLabel(r).cString, ClaimRequirementLabel(r).cString)
        XCTAssertEqual(ClaimRequirementLabel(r).description, "/interned~1name contains_any")
    }

    /// The multi-issuer path (claims read before the policy is known) names it too.
    func testMultiIssuerNamesIt() throws {
        let iss = "https://issuer.example"
        let store = KeyStore()
        store.publish(JWKSet(keys: [try VerificationKey(hmacSecret: secret, kid: "k")]), forIssuer: iss)
        let policy = ClaimsPolicy(
            issuers: [iss], requireExpiration: false, claimRequirements: [try ClaimRequirement("/t", .equals("a"))])
        let v = MultiIssuerVerifier(
            store: store, issuers: [IssuerConfiguration(issuer: iss, policy: policy)], clock: FixedClock(now))
        let token = AttackSigner.token(
            header: #"{"alg":"HS256","kid":"k"}"#, claims: "{\"iss\":\"\(iss)\",\"t\":\"b\"}", key: secret)
        XCTAssertEqual(v.check(token)?.requirement?.description, "/t equals")
    }
}
