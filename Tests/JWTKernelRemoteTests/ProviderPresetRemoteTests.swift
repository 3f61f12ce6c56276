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
