import JWTKernelTestSupport
import XCTest

@testable import JWTKernel
@testable import JWTKernelRemote

/// A preset's locally configured keys (LINE's channel secret) beside the keys
/// its URL serves, through the refresher.
final class ProviderPresetRemoteTests: XCTestCase {
    func testLineChannelSecretIsPublishedAtOnceAndKeptBesideFetchedKeys() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        // LINE publishes EC P-256 keys; this one is RFC 7515 A.3's.
        server.serve(
            "/line/certs",
            json: #"{"keys":[{"kty":"EC","crv":"P-256","kid":"line-ec","alg":"ES256","use":"sig","#
                + #""x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}]}"#
        )
        let secret = String(repeating: "c", count: 32)
        let preset = try ProviderPreset.line(channelID: "1234", channelSecret: secret)
        let store = KeyStore()
        let refresher = KeyRefresher(store: store, clock: ManualClock())
        refresher.add(
            issuer: preset.keyIssuer, source: try HTTPKeySource(url: server.url("/line/certs")),
            localKeys: preset.localKeys)
        let verifier = MultiIssuerVerifier(store: store, issuers: preset.issuers)
        let web =
            server.command([
                "cmd": "hs256", "secret": secret, "header": #"{"alg":"HS256","typ":"JWT"}"#,
                "claims": #"{"iss":"https://access.line.me","sub":"U1","aud":"1234","exp":4000000000}"#,
            ])["token"] as? String ?? ""
        XCTAssertNil(verifier.check(web), "the channel secret works before any fetch")
        XCTAssertEqual(refresher.refreshDue(), 1)
        XCTAssertEqual(store.keys(forIssuer: preset.keyIssuer)?.keys.compactMap(\.kid), ["line-ec"])
        XCTAssertEqual(store.keys(forIssuer: preset.keyIssuer)?.keys.count, 2)
        XCTAssertNil(verifier.check(web), "and after it")
    }
}

/// A preset without its audience is refused before any fetch on each Swift surface that takes one: the
/// refresher (and so the frameworks' `verifier(presets:)`), a named preset and the issuer configuration file
/// (the CLI's `--issuer-config` and the forward-auth agent).
final class ProviderPresetAudienceRemoteTests: XCTestCase {
    func testTheRefresherRefusesAPresetWithoutAudience() {
        let refresher = KeyRefresher(store: KeyStore(), clock: ManualClock())
        for preset in [ProviderPreset.apple(audiences: []), .google(audiences: [""]), .facebook(audiences: [])] {
            XCTAssertThrowsError(try refresher.verifier(presets: [preset])) { error in
                let error = error as? KeySourceError
                XCTAssertEqual(error?.reason, .badConfiguration)
                XCTAssertTrue(
                    error?.message.contains("provider \(preset.provider)") == true, "\(String(describing: error))")
            }
        }
        XCTAssertTrue(refresher.allStats.isEmpty, "nothing registered, nothing fetched")
        XCTAssertNoThrow(try refresher.verifier(presets: [.google(audiences: ["c"])]))
    }

    func testNamedPresetsAndTheIssuerFileRefuseWithoutAudience() {
        for name in ProviderPreset.names {
            for audiences in [[], [""]] {
                XCTAssertThrowsError(try ProviderPreset.named(name, audiences: audiences), name) { error in
                    XCTAssertTrue("\(error)".contains(ProviderPreset.audienceName(provider: name)), "\(error)")
                }
            }
            XCTAssertNoThrow(try ProviderPreset.named(name, audiences: ["a"], tenant: name == "microsoft" ? "t" : nil))
        }
        XCTAssertThrowsError(try ProviderPreset.named("myspace", audiences: [])) { error in
            XCTAssertTrue("\(error)".contains("unknown provider myspace"), "\(error)")
        }
        XCTAssertThrowsError(try IssuerConfigurationFile(parsing: Array(#"{"issuers":[{"provider":"google"}]}"#.utf8)))
        {
            XCTAssertTrue("\($0)".contains("OAuth client ID"), "\($0)")
        }
    }
}
