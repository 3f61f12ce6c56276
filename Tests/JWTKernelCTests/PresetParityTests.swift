import CJWTK
import JWTKernel
import JWTKernelRemote
import XCTest

@testable import JWTKernelC

/// A preset means the same on every surface: each provider written once, in the one schema (`IssuerEntry`),
/// and read through the C library's config (and so nginx's `jwtk_provider` and Python) and through the issuer
/// configuration file (`--issuer-config`, the forward-auth agent), gives the Swift preset's issuers, algorithms,
/// audiences, required claims, audience rule and key URL. The aliases (`tenant_id`, Firebase's project from
/// `project_id` or from `audiences`) read the same on both.
final class PresetParityTests: XCTestCase {
    let cases: [(config: String, swift: ProviderPreset)] = [
        (#"{"provider":"apple","audiences":["com.example"]}"#, .apple(audiences: ["com.example"])),
        (#"{"provider":"google","audiences":["c1","c2"]}"#, .google(audiences: ["c1", "c2"])),
        (#"{"provider":"facebook","audiences":["123"]}"#, .facebook(audiences: ["123"])),
        (#"{"provider":"firebase","project_id":"p-1"}"#, .firebase(projectID: "p-1")),
        (#"{"provider":"firebase","audiences":["p-1"]}"#, .firebase(projectID: "p-1")),
        (#"{"provider":"line","audiences":["165"]}"#, try! .line(channelID: "165")),
        (
            #"{"provider":"microsoft","tenant_id":"t-1","audiences":["app"]}"#,
            .microsoft(tenantID: "t-1", audiences: ["app"])
        ),
        (
            #"{"provider":"microsoft","tenant":"t-1","audiences":["app"]}"#,
            .microsoft(tenantID: "t-1", audiences: ["app"])
        ),
    ]

    func testEveryPresetIsTheSameThroughEverySurface() throws {
        for (config, swift) in cases {
            let settings = try cParse(config)
            let file = try IssuerConfigurationFile(parsing: Array(#"{"issuers":[\#(config)]}"#.utf8))
            let routes = try XCTUnwrap(file.entries.first).routes()
            let expected = swift.issuers[0].policy
            for (surface, policy) in [("C", settings.policy), ("file", routes[0].policy)] {
                let what = "\(config) through \(surface)"
                XCTAssertEqual(policy.algorithms, expected.algorithms, what)
                XCTAssertEqual(policy.audiences, expected.audiences, what)
                XCTAssertEqual(policy.requiredClaims, expected.requiredClaims, what)
                XCTAssertEqual(policy.audienceRequired, true, what)
                XCTAssertEqual(policy.expectedNonce, expected.expectedNonce, what)
            }
            XCTAssertEqual(settings.policy.issuers, swift.issuerNames, "C: the preset's issuers")
            XCTAssertEqual(routes.map(\.issuer), swift.issuerNames, "file: the preset's issuers")
            XCTAssertEqual(Set(routes.map(\.keyIssuer)), [swift.keyIssuer], "file: one key set")
            XCTAssertEqual(try XCTUnwrap(file.entries.first).preset()?.keyURL, swift.keyURL)
            // The C library's key URL for the preset (pull mode without a mirror).
            let remote = try cParse(String(config.dropLast()) + #","pull":true}"#).remote
            XCTAssertEqual(remote?.url, swift.keyURL, "\(config): the key URL through C")
        }
    }

    /// One schema, one message: a configuration either surface refuses, both refuse, naming the same member.
    func testTheSameConfigurationIsRefusedTheSameWayOnBothSurfaces() throws {
        let refused: [(String, String)] = [
            (#"{"provider":"apple"}"#, "audience"),
            (#"{"provider":"apple","audiences":["a"],"issuers":["https://x"]}"#, "\"issuers\": provider apple"),
            (#"{"provider":"google","audiences":["a"],"algorithms":["HS256"]}"#, "does not sign with HS256"),
            (#"{"provider":"apple","audiences":["a"],"tenant":"t"}"#, "tenant"),
            (#"{"issuer":"https://x","issuers":["https://y"],"jwks_url":"https://x/k"}"#, "\"issuer\": the same as"),
            (#"{"provider":"microsoft","tenant":"a","tenant_id":"b","audiences":["c"]}"#, "\"tenant_id\""),
            (#"{"issuers":["https://x"],"jwks_url":"https://x/k","leeway":"60"}"#, "\"leeway\": expected an integer"),
            (#"{"issuers":["https://x"],"jwks_url":"https://x/k","audience":["a"]}"#, "unknown member \"audience\""),
            (#"{"issuers":["https://x"],"jwks_url":"https://x/k","claims":[{"pointer":"/a"}]}"#, "claims[0]"),
            (#"{"issuers":["https://x","https://y"],"discovery":true}"#, "exactly one issuer"),
        ]
        for (config, needle) in refused {
            var cMessage = ""
            do { _ = try cParse(config) } catch { cMessage = error.message ?? "" }
            var fileMessage = ""
            do { _ = try IssuerConfigurationFile(parsing: Array(#"{"issuers":[\#(config)]}"#.utf8)) } catch {
                fileMessage = error.description
            }
            XCTAssertTrue(cMessage.contains(needle), "C: \(config): \(cMessage)")
            XCTAssertTrue(fileMessage.contains(needle), "file: \(config): \(fileMessage)")
        }
    }

    /// The members only one surface has: a C verifier's own, refused by the file by name; and a file entry
    /// must say where its keys come from, which a C verifier need not (keys can be loaded).
    func testWhatOnlyOneSurfaceTakes() throws {
        XCTAssertNoThrow(try cParse(#"{"issuers":["https://x"],"cache":true,"max_token_size":4096}"#))
        XCTAssertThrowsError(
            try IssuerConfigurationFile(
                parsing: Array(#"{"issuers":[{"issuer":"https://x","jwks_url":"https://x/k","cache":true}]}"#.utf8))
        ) { XCTAssertTrue("\($0)".contains("\"cache\": a member of the C library's verifier config"), "\($0)") }
        XCTAssertThrowsError(try IssuerConfigurationFile(parsing: Array(#"{"issuers":[{"issuer":"https://x"}]}"#.utf8)))
        XCTAssertThrowsError(try cParse(#"{"provider":"microsoft","audiences":["a"]}"#)) {
            XCTAssertTrue(
                (($0 as? StatusError)?.message ?? "").contains("\"tenant\" is required in a C verifier"), "\($0)")
        }
        XCTAssertNoThrow(
            try IssuerConfigurationFile(
                parsing: Array(#"{"issuers":[{"provider":"microsoft","audiences":["a"]}]}"#.utf8)))
    }

    private func cParse(_ config: String) throws(StatusError) -> VerifierSettings {
        let bytes = Array(config.utf8)
        return try bytes.withUnsafeBytes { raw in
            Result { () throws(StatusError) in try VerifierConfig.parse(raw) }
        }.get()
    }
}
