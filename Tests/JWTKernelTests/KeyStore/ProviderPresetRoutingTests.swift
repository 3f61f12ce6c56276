import XCTest

@testable import JWTKernel

/// Provider presets through the store and the multi-issuer verifier: shared key
/// sets for several issuer spellings, Microsoft's `{tenantid}` template against
/// `tid`, LINE's channel secret beside its JWKS.
final class ProviderPresetRoutingTests: XCTestCase {
    func testEveryPresetNamesHTTPSKeysIssuersAndAlgorithms() throws {
        let presets = [
            ProviderPreset.apple(audiences: ["a"]), .google(audiences: ["c"]), .firebase(projectID: "p"),
            .facebook(audiences: ["f"]), try .line(channelID: "1", channelSecret: String(repeating: "s", count: 32)),
            .microsoft(tenantID: "t", audiences: ["m"]), .microsoftMultiTenant(audiences: ["m"]),
        ]
        for p in presets {
            XCTAssertTrue(p.keyURL.hasPrefix("https://"), p.provider)
            XCTAssertFalse(p.issuers.isEmpty, p.provider)
            XCTAssertFalse(p.algorithms.algorithms.isEmpty, p.provider)
            XCTAssertFalse(p.checks.isEmpty, p.provider)
            XCTAssertTrue(p.issuers.allSatisfy { $0.keyIssuer == p.keyIssuer }, p.provider)
        }
        XCTAssertEqual(ProviderPreset.firebase(projectID: "p").keyFormat, .pemCertificateMap)
        XCTAssertEqual(
            ProviderPreset.google(audiences: []).issuerNames, ["https://accounts.google.com", "accounts.google.com"])
        XCTAssertEqual(try ProviderPreset.line(channelID: "1").algorithms, AlgorithmSet([.es256]))
        XCTAssertEqual(
            try ProviderPreset.line(channelID: "1", channelSecret: String(repeating: "s", count: 32)).algorithms,
            AlgorithmSet([.es256, .hs256]))
    }

    func testRealMicrosoftTokensOfSeveralTenantsVerifyWithTheMultiTenantTemplate() throws {
        let tokens = try RealTokenTests.load().filter { $0.provider == "microsoft" }
        XCTAssertGreaterThanOrEqual(tokens.count, 4)
        for t in tokens {
            let preset = ProviderPreset.microsoftMultiTenant(audiences: [t.aud])
            let store = KeyStore()
            store.publish(try JWKSet(json: t.jwks), forIssuer: preset.keyIssuer)
            let verifier = MultiIssuerVerifier(store: store, issuers: preset.issuers, clock: FixedClock(t.iat + 1))
            XCTAssertNil(verifier.check(t.token), t.name)
            // The single-tenant preset for another tenant does not accept it.
            let other = ProviderPreset.microsoft(tenantID: "00000000-0000-0000-0000-000000000000", audiences: [t.aud])
            store.publish(try JWKSet(json: t.jwks), forIssuer: other.keyIssuer)
            XCTAssertEqual(
                MultiIssuerVerifier(store: store, issuers: other.issuers, clock: FixedClock(t.iat + 1)).check(t.token)?
                    .code,
                .unknownIssuer, t.name)
        }
    }

    func testTemplateIssuerMustMatchTheTokensOwnTid() throws {
        let template = "https://login.microsoftonline.com/{tenantid}/v2.0"
        let store = KeyStore()
        store.publish(try JWKSet(json: StoreKit.jwks(["k"])), forIssuer: template)
        let verifier = MultiIssuerVerifier(
            store: store,
            issuers: [
                IssuerConfiguration(issuer: template, policy: ClaimsPolicy(algorithms: AlgorithmSet([.hs256])))
            ])
        let minter = HS256Minter(secret: StoreKit.secret("k"), kid: "k")
        func token(iss: String, tid: String?) -> String {
            let tidMember = tid.map { #","tid":"\#($0)""# } ?? ""
            return minter.token(claims: #"{"iss":"\#(iss)","exp":4000000000\#(tidMember)}"#)
        }
        let tenant = "9188040d-6c67-4c5b-b112-36a304b66dad"
        XCTAssertNil(verifier.check(token(iss: "https://login.microsoftonline.com/\(tenant)/v2.0", tid: tenant)))
        XCTAssertNil(verifier.check(token(iss: #"https:\/\/login.microsoftonline.com\/\#(tenant)\/v2.0"#, tid: tenant)))
        for (iss, tid) in [
            ("https://login.microsoftonline.com/\(tenant)/v2.0", "other-tenant"),
            ("https://login.microsoftonline.com/\(tenant)/v2.0", nil),
            ("https://login.microsoftonline.com/\(tenant)/v2.0", ""),
            ("https://login.microsoftonline.com/a/b/v2.0", "a/b"),
            ("https://login.microsoftonline.com/{tenantid}/v2.0", "{tenantid}"),
            ("https://login.microsoftonline.com/\(tenant)/v2.0/", tenant),
            ("https://evil.example/\(tenant)/v2.0", tenant),
        ] {
            XCTAssertEqual(
                verifier.check(token(iss: iss, tid: tid))?.code, .unknownIssuer, "\(iss) tid=\(tid ?? "nil")")
        }
        let longTenant = String(repeating: "a", count: 100)
        XCTAssertEqual(
            verifier.check(token(iss: "https://login.microsoftonline.com/\(longTenant)/v2.0", tid: longTenant))?.code,
            .unknownIssuer)
        XCTAssertEqual(
            verifier.check(token(iss: String(repeating: "x", count: 2000), tid: tenant))?.code, .unknownIssuer)
    }

    func testExactIssuerWinsOverTemplateAndSharedKeySetsServeBothSpellings() throws {
        let store = KeyStore()
        store.publish(try JWKSet(json: StoreKit.jwks(["g"])), forIssuer: "google-keys")
        store.publish(try JWKSet(json: StoreKit.jwks(["t"])), forIssuer: "https://x.example/{tenantid}")
        store.publish(try JWKSet(json: StoreKit.jwks(["e"])), forIssuer: "https://x.example/special")
        let hs = ClaimsPolicy(algorithms: AlgorithmSet([.hs256]))
        var google = hs
        google.issuers = ["https://accounts.google.com", "accounts.google.com"]
        let verifier = MultiIssuerVerifier(
            store: store,
            issuers: [
                IssuerConfiguration(issuer: "https://x.example/{tenantid}", policy: hs),
                IssuerConfiguration(issuer: "https://x.example/special", policy: hs),
                IssuerConfiguration(issuer: "https://accounts.google.com", policy: google, keyIssuer: "google-keys"),
                IssuerConfiguration(issuer: "accounts.google.com", policy: google, keyIssuer: "google-keys"),
            ])
        XCTAssertNil(verifier.check(StoreKit.token(kid: "g", iss: "https://accounts.google.com")))
        XCTAssertNil(verifier.check(StoreKit.token(kid: "g", iss: "accounts.google.com")))
        let special = HS256Minter(secret: StoreKit.secret("e"), kid: "e")
            .token(claims: #"{"iss":"https://x.example/special","tid":"special","exp":4000000000}"#)
        XCTAssertNil(verifier.check(special), "the exact issuer's keys, not the template's")
    }

    func testLineChannelSecretVerifiesWebLoginTokensWithoutKid() throws {
        let secret = String(repeating: "c", count: 32)
        let preset = try ProviderPreset.line(channelID: "1234", channelSecret: secret)
        let store = KeyStore()
        store.publish(try XCTUnwrap(preset.localKeys), forIssuer: preset.keyIssuer)
        let verifier = MultiIssuerVerifier(store: store, issuers: preset.issuers)
        let claims = #"{"iss":"https://access.line.me","sub":"U1","aud":"1234","exp":4000000000}"#
        let web = HS256Minter(secret: Array(secret.utf8), kid: "").token(
            claims: claims, header: #"{"alg":"HS256","typ":"JWT"}"#)
        XCTAssertNil(verifier.check(web))
        let wrongSecret = HS256Minter(secret: Array(String(repeating: "d", count: 32).utf8), kid: "")
            .token(claims: claims, header: #"{"alg":"HS256","typ":"JWT"}"#)
        XCTAssertEqual(verifier.check(wrongSecret)?.code, .badSignature)
        // Without a channel secret, HS256 is not even allowed.
        let esOnly = try ProviderPreset.line(channelID: "1234")
        XCTAssertEqual(MultiIssuerVerifier(store: store, issuers: esOnly.issuers).check(web)?.code, .algNotAllowed)
    }
}
