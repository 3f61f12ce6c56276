import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

/// Each provider preset accepts that provider's real tokens (with its real
/// audience) and rejects them under another provider's preset or audience.
final class ProviderPresetTests: XCTestCase {
    typealias RealToken = RealTokenTests.RealToken

    func tokens(_ provider: String) throws -> [RealToken] {
        try RealTokenTests.load().filter { $0.provider == provider }
    }

    func assertPreset(
        _ provider: String, minimum: Int, _ preset: (RealToken) -> ClaimsPolicy,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let all = try tokens(provider)
        XCTAssertGreaterThanOrEqual(all.count, minimum, "fixtures for \(provider)", file: file, line: line)
        for t in all {
            let verifier = JWTVerifier(keys: try JWKSet(json: t.jwks), policy: preset(t), clock: FixedClock(t.iat + 1))
            XCTAssertNil(verifier.check(t.token), "\(t.name) under the \(provider) preset", file: file, line: line)
        }
    }

    func testApple() throws {
        try assertPreset("apple", minimum: 20) { .apple(audiences: [$0.aud]) }
    }

    func testGoogle() throws {
        try assertPreset("google", minimum: 10) { .google(audiences: [$0.aud]) }
    }

    func testFirebase() throws {
        try assertPreset("firebase", minimum: 3) { .firebase(projectID: $0.aud) }
    }

    func testFacebook() throws {
        try assertPreset("facebook", minimum: 3) { .facebook(audiences: [$0.aud]) }
    }

    func testMicrosoftTenantIssuers() throws {
        try assertPreset("microsoft", minimum: 5) { t in
            // v2.0: https://login.microsoftonline.com/{tenant}/v2.0; v1: https://sts.windows.net/{tenant}/
            let tenant = t.iss.split(separator: "/").first { $0.count == 36 && $0.contains("-") }.map(String.init) ?? ""
            return .microsoft(tenantID: tenant, audiences: [t.aud])
        }
    }

    func testPresetsRejectOtherProvidersAndAudiences() throws {
        let apple = try tokens("apple")[0]
        let google = try tokens("google")[0]
        let asGoogle = JWTVerifier(
            keys: try JWKSet(json: apple.jwks), policy: .google(audiences: [apple.aud]),
            clock: FixedClock(apple.iat + 1))
        XCTAssertEqual(asGoogle.check(apple.token)?.code, .badIssuer)
        let otherAudience = JWTVerifier(
            keys: try JWKSet(json: google.jwks), policy: .google(audiences: ["someone-else"]),
            clock: FixedClock(google.iat + 1))
        XCTAssertEqual(otherAudience.check(google.token)?.code, .badAudience)
        let wrongNonce = JWTVerifier(
            keys: try JWKSet(json: apple.jwks), policy: .apple(audiences: [apple.aud], nonce: "n-0S6_WzA2Mj"),
            clock: FixedClock(apple.iat + 1))
        XCTAssertNotNil(wrongNonce.check(apple.token), "a preset with an expected nonce rejects a token without it")
    }
}

/// A preset without its audience would admit the provider's ID tokens of every application: it names the
/// problem for every surface to refuse, and its policy still fails closed where nothing refused it.
final class ProviderPresetAudienceTests: XCTestCase {
    typealias RealToken = RealTokenTests.RealToken

    func testPresetsWithoutAudienceNameWhatIsMissing() throws {
        let presets: [(ProviderPreset, String)] = [
            (.apple(audiences: []), "bundle ID"), (.google(audiences: []), "OAuth client ID"),
            (.facebook(audiences: []), "app ID"), (try .line(channelID: ""), "channel ID"),
            (.microsoft(tenantID: "t", audiences: []), "application (client) ID"),
            (.microsoftMultiTenant(audiences: []), "application (client) ID"), (.firebase(projectID: ""), "project ID"),
        ]
        for (preset, words) in presets {
            let problem = try XCTUnwrap(preset.audienceProblem, preset.provider)
            XCTAssertTrue(problem.contains(words), problem)
            XCTAssertTrue(problem.contains("provider \(preset.provider)"), problem)
        }
        XCTAssertNil(ProviderPreset.google(audiences: ["c"]).audienceProblem)
        XCTAssertNotNil(ProviderPreset.google(audiences: ["c", ""]).audienceProblem, "an empty client ID")
        XCTAssertNil(ProviderPreset.firebase(projectID: "p").audienceProblem)
    }

    /// Real tokens under their provider's policy with no audience: every one is refused (`bad_audience`),
    /// where before the audience went unchecked and each verified.
    func testAPresetPolicyWithoutAudienceFailsClosed() throws {
        let cases: [(String, ClaimsPolicy)] = [
            ("apple", .apple(audiences: [])), ("google", .google(audiences: [])), ("facebook", .facebook(audiences: [])),
        ]
        for (provider, policy) in cases {
            let tokens = try RealTokenTests.load().filter { $0.provider == provider }
            XCTAssertFalse(tokens.isEmpty, provider)
            for t in tokens {
                let verifier = JWTVerifier(keys: try JWKSet(json: t.jwks), policy: policy, clock: FixedClock(t.iat + 1))
                XCTAssertEqual(verifier.check(t.token)?.code, .badAudience, t.name)
                var emptied = policy
                emptied.audiences = [t.aud]
                let configured = JWTVerifier(
                    keys: try JWKSet(json: t.jwks), policy: emptied, clock: FixedClock(t.iat + 1))
                XCTAssertNil(configured.check(t.token), "\(t.name) with its audience")
            }
        }
        // A policy of the application's own (not a preset's) still checks `aud` only when given one.
        let google = try XCTUnwrap(RealTokenTests.load().first { $0.provider == "google" })
        let plain = ClaimsPolicy(issuers: [google.iss])
        let verifier = JWTVerifier(
            keys: try JWKSet(json: google.jwks), policy: plain, clock: FixedClock(google.iat + 1))
        XCTAssertNil(verifier.check(google.token))
    }
}
