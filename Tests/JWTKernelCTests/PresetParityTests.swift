import CJWTK
import JWTKernel
import JWTKernelRemote
import XCTest

@testable import JWTKernelC

/// A preset means the same on every surface: each provider built through the C library's config (and so
/// nginx's `jwtk_provider` and Python), through the issuer configuration file (`--issuer-config`, the
/// forward-auth agent) and through the Swift preset itself gives the same issuers, algorithms, audiences,
/// required claims, audience rule and key URL.
final class PresetParityTests: XCTestCase {
    struct Case {
        let c: String
        let file: String
        let swift: ProviderPreset
    }

    func cases() throws -> [Case] {
        [
            Case(
                c: #"{"provider":"apple","audiences":["com.example"]}"#,
                file: #"{"provider":"apple","audiences":["com.example"]}"#, swift: .apple(audience: ["com.example"])),
            Case(
                c: #"{"provider":"google","audiences":["c1","c2"]}"#,
                file: #"{"provider":"google","audiences":["c1","c2"]}"#, swift: .google(clientIDs: ["c1", "c2"])),
            Case(
                c: #"{"provider":"facebook","audiences":["123"]}"#,
                file: #"{"provider":"facebook","audiences":["123"]}"#,
                swift: .facebook(appIDs: ["123"])),
            Case(
                c: #"{"provider":"firebase","project_id":"p-1"}"#,
                file: #"{"provider":"firebase","audiences":["p-1"]}"#,
                swift: .firebase(projectID: "p-1")),
            Case(
                c: #"{"provider":"line","audiences":["165"]}"#, file: #"{"provider":"line","audiences":["165"]}"#,
                swift: try .line(channelID: "165")),
            Case(
                c: #"{"provider":"microsoft","tenant_id":"t-1","audiences":["app"]}"#,
                file: #"{"provider":"microsoft","tenant":"t-1","audiences":["app"]}"#,
                swift: .microsoft(tenantID: "t-1", clientIDs: ["app"])),
        ]
    }

    func testEveryPresetIsTheSameThroughEverySurface() throws {
        for c in try cases() {
            let settings = try c.c.utf8CString.withUnsafeBytes { raw in
                try Result { () throws(StatusError) in
                    try VerifierConfig.parse(UnsafeRawBufferPointer(rebasing: raw.dropLast()))
                }.get()
            }
            let file = try IssuerConfigurationFile(parsing: Array(#"{"issuers":[\#(c.file)]}"#.utf8))
            let entry = try XCTUnwrap(file.entries.first)
            let named = try ProviderPreset.named(
                try XCTUnwrap(entry.provider), audiences: entry.audiences, tenant: entry.tenant)
            let expected = c.swift.issuers[0].policy
            for (surface, policy) in [("C", settings.policy), ("file", named.issuers[0].policy)] {
                let what = "\(c.swift.provider) through \(surface)"
                XCTAssertEqual(policy.algorithms, expected.algorithms, what)
                XCTAssertEqual(policy.audiences, expected.audiences, what)
                XCTAssertEqual(policy.requiredClaims, expected.requiredClaims, what)
                XCTAssertEqual(policy.audienceRequired, true, what)
                XCTAssertEqual(policy.expectedNonce, expected.expectedNonce, what)
            }
            XCTAssertEqual(settings.policy.issuers, c.swift.issuerNames, "C: the preset's issuers")
            XCTAssertEqual(named.issuerNames, c.swift.issuerNames, "file: the preset's issuers")
            XCTAssertEqual(named.keyURL, c.swift.keyURL)
            // The C library's key URL for the preset (pull mode without a mirror).
            let pulled = c.c.dropLast() + #","pull":true}"#
            let remote = try String(pulled).utf8CString.withUnsafeBytes { raw in
                try Result { () throws(StatusError) in
                    try VerifierConfig.parse(UnsafeRawBufferPointer(rebasing: raw.dropLast())).remote
                }.get()
            }
            XCTAssertEqual(remote?.url, c.swift.keyURL, "\(c.swift.provider): the key URL through C")
        }
    }
}
