import Foundation
import JWTKernel
import JWTKernelRemote
import JWTKernelTestSupport
import XCTest

/// The DocC catalogue's code samples (Sources/JWTKernel/JWTKernel.docc), compiled and run: each
/// test holds one sample verbatim between `// sample:` and `// end sample` (indentation aside),
/// with the names the sample takes as given (`token`, `savedKeysPath`, `keys`, `apple`) set up
/// before it and its outcome checked after. `testEverySampleIsInThisFile` fails when a ```swift block
/// of an article appears nowhere here, so a sample cannot drift from code that compiles.
/// Tokens are RS256, signed by the `openssl` command with a fresh key (OpenSSLRSAKey), with Apple's
/// issuer; "remote" keys come from the loopback server through `ProviderPreset.mirrored(at:)`, so
/// nothing leaves the machine.
final class GettingStartedTests: XCTestCase {
    static let audience = "com.example.app"

    /// A fresh key, its JWKS saved to a file, and a current Apple-shaped ID token it signed.
    struct Fixture {
        let key: OpenSSLRSAKey
        let savedKeysPath: String
        let token: String
        let jwks: String
    }

    func fixture(iss: String = "https://appleid.apple.com") throws -> Fixture {
        let key = try OpenSSLRSAKey(kid: "docs-1")
        let jwks = try key.jwks()
        let path = key.directory.appendingPathComponent("apple-keys.json").path
        try Data(jwks.utf8).write(to: URL(fileURLWithPath: path))
        let now = Int(Date().timeIntervalSince1970)
        let token = try key.token(
            claims:
                #"{"iss":"\#(iss)","aud":"\#(Self.audience)","sub":"001234.docs","#
                + #""email":"user@example.com","iat":\#(now),"exp":\#(now + 600)}"#)
        return Fixture(key: key, savedKeysPath: path, token: token, jwks: jwks)
    }

    // GettingStarted.md: "Verify with keys saved to a file"
    func testOfflineVerifierSample() throws {
        let f = try fixture()
        let savedKeysPath = f.savedKeysPath, token = f.token
        var subject: String?
        var refused: JWTErrorCode?
        func print(_ items: Any...) {
            if items.first as? String == "signed in:" { subject = items[1] as? String }
            if items.first as? String == "refused:" { refused = JWTErrorCode(name: items[1] as! String) }
        }
        // sample:
        let jwks = try Data(contentsOf: URL(fileURLWithPath: savedKeysPath))  // Apple's key set, saved
        let keys = try JWKSet(json: jwks)  // a JWKS, one JWK, or Google's {kid: PEM} map
        for problem in keys.rejected { print("skipped key:", problem) }  // weak or malformed keys, with the reason

        let verifier = JWTVerifier(keys: keys, policy: .apple(audiences: ["com.example.app"]))
        do {
            let jwt = try verifier.verify(token)  // typed throws: JWTError
            print("signed in:", jwt.subject ?? "", jwt.claims["email"]?.stringValue ?? "")
        } catch {
            print("refused:", error.code.name)  // "expired", "bad_signature", "bad_audience", ...
        }
        // end sample
        XCTAssertEqual(subject, "001234.docs")
        XCTAssertNil(refused)
        XCTAssertEqual(verifier.check(KeyKitLite.flippingLastSignatureCharacter(token))?.code, .badSignature)
    }

    // GettingStarted.md: "Typed claims"
    func testTypedClaimsSample() throws {
        let f = try fixture()
        let verifier = JWTVerifier(
            keys: try JWKSet(json: Array(f.jwks.utf8)), policy: .apple(audiences: [Self.audience]))
        let token = f.token
        // sample:
        struct AppleClaims: Decodable {
            let sub: String
            let email: String?
            let exp: NumericDate  // RFC 7519 NumericDate (Foundation's Date would count from 2001)
        }
        let claims = try verifier.verify(token, as: AppleClaims.self)  // JWTError, or DecodingError
        // end sample
        XCTAssertEqual(claims.sub, "001234.docs")
        XCTAssertEqual(claims.email, "user@example.com")
        XCTAssertGreaterThan(claims.exp.secondsSince1970, Date().timeIntervalSince1970)
    }

    // GettingStarted.md: "A provider preset, offline"
    func testOfflinePresetSample() throws {
        let f = try fixture()
        let keys = try JWKSet(json: Array(f.jwks.utf8))
        let token = f.token
        // sample:
        let apple = ProviderPreset.apple(audiences: ["com.example.app"])
        let store = KeyStore()
        store.publish(keys, forIssuer: apple.keyIssuer)  // the saved keys, as Apple's
        let verifier = MultiIssuerVerifier(store: store, issuers: apple.issuers)
        let jwt = try verifier.verify(token)  // routed by iss; unknown_issuer for any other
        // end sample
        XCTAssertEqual(jwt.subject, "001234.docs")
        XCTAssertEqual(apple.keyURL, "https://appleid.apple.com/auth/keys")
        XCTAssertEqual(apple.issuerNames, ["https://appleid.apple.com"])
        let google = try fixture(iss: "https://accounts.google.com")
        store.publish(try JWKSet(json: Array(google.jwks.utf8)), forIssuer: apple.keyIssuer)
        XCTAssertEqual(verifier.check(google.token)?.code, .unknownIssuer)
    }

    // GettingStarted.md: "Keys fetched and refreshed"
    func testRefresherSample() throws {
        let f = try fixture()
        let server = try LoopbackServer()
        defer { server.stop() }
        server.serve("/apple/auth/keys", json: f.jwks, headers: ["Cache-Control": "max-age=3600"])
        let apple = ProviderPreset.apple(audiences: [Self.audience]).mirrored(at: server.url("/apple/auth/keys"))
        let token = f.token
        var refused: JWTErrorCode?
        var printed: [String] = []
        func print(_ items: Any...) {
            printed.append(items.map { "\($0)" }.joined(separator: " "))
            if items.first as? String == "refused:" { refused = JWTErrorCode(name: items[1] as! String) }
        }
        do {
            // sample:
            let store = KeyStore()
            let refresher = KeyRefresher(store: store)  // no thread yet
            try refresher.add(preset: apple)  // fetches apple.keyURL, https://appleid.apple.com/auth/keys
            refresher.refreshNow(issuer: apple.keyIssuer)  // optional: the first fetch now, on this thread
            refresher.start()  // one background thread (start it after forking workers)
            defer { refresher.stop() }  // cuts a fetch in progress: returns within 1 s, even if the key URL hangs

            let verifier = MultiIssuerVerifier(store: store, issuers: apple.issuers)
            if let error = verifier.check(token) {
                print("refused:", error.code.name)  // keys_unavailable until a first fetch succeeded
            }
            print(refresher.stats(issuer: apple.keyIssuer)!)  // fetches, failures by reason, not-modified, ...
            // end sample
            XCTAssertTrue(refresher.isRunning)
        }
        XCTAssertNil(refused)
        XCTAssertEqual(printed.count, 1)
        XCTAssertGreaterThanOrEqual(server.requests("/apple/auth/keys"), 1)
    }

    // GettingStarted.md: "Apple and Google together"
    func testTwoProvidersSample() throws {
        let f = try fixture()
        let server = try LoopbackServer()
        defer { server.stop() }
        server.serve("/apple/auth/keys", json: f.jwks)
        let apple = ProviderPreset.apple(audiences: [Self.audience]).mirrored(at: server.url("/apple/auth/keys"))
        let store = KeyStore()
        let refresher = KeyRefresher(store: store)
        try refresher.add(preset: apple)
        let googleToken = try fixture(iss: "https://accounts.google.com").token
        // sample:
        let google = ProviderPreset.google(audiences: ["1234.apps.googleusercontent.com"])
        try refresher.add(preset: google)
        let verifier = MultiIssuerVerifier(store: store, issuers: apple.issuers + google.issuers)
        // end sample
        XCTAssertTrue(refresher.refreshNow(issuer: apple.keyIssuer))
        XCTAssertNil(verifier.check(f.token))
        // Google's keys were never fetched here (no thread, no network): its tokens wait for them.
        XCTAssertEqual(verifier.check(googleToken)?.code, .keysUnavailable)
        XCTAssertEqual(google.issuerNames, ["https://accounts.google.com", "accounts.google.com"])
    }

    // HotPathContract.md: the zero-copy form
    func testZeroCopySample() throws {
        let f = try fixture()
        let verifier = JWTVerifier(
            keys: try JWKSet(json: Array(f.jwks.utf8)), policy: .apple(audiences: [Self.audience]))
        let bytes = Array(f.token.utf8)
        // sample:
        let algorithm = try bytes.withUnsafeBytes { raw in
            try verifier.verify(raw) { token in token.algorithm }  // the view lives only inside the closure
        }
        // end sample
        XCTAssertEqual(algorithm, .rs256)
    }

    /// Every ```swift block of the catalogue's articles, `import` lines left out, is in this file.
    func testEverySampleIsInThisFile() throws {
        let here = URL(fileURLWithPath: #filePath)
        let catalogue = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/JWTKernel/JWTKernel.docc")
        let articles = try FileManager.default.contentsOfDirectory(atPath: catalogue.path).filter {
            $0.hasSuffix(".md")
        }.sorted()
        XCTAssertFalse(articles.isEmpty, catalogue.path)
        // This file's lines and each sample's, without indentation and blank lines.
        let source = try String(contentsOf: here, encoding: .utf8).split(separator: "\n")
            .map { $0.drop { $0 == " " } }.filter { !$0.isEmpty }
        var checked = 0
        for article in articles {
            let text = try String(contentsOf: catalogue.appendingPathComponent(article), encoding: .utf8)
            var block: [Substring]?
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                if block == nil {
                    if line == "```swift" { block = [] }
                } else if line == "```" {
                    let lines = block!.map { $0.drop { $0 == " " } }.filter { !$0.isEmpty && !$0.hasPrefix("import ") }
                    block = nil
                    guard !lines.isEmpty else { continue }
                    checked += 1
                    let found = source.indices.contains { start in
                        start + lines.count <= source.count
                            && zip(lines, source[start..<start + lines.count]).allSatisfy { $0 == $1 }
                    }
                    XCTAssertTrue(
                        found,
                        "\(article): a swift sample not in GettingStartedTests.swift:\n\(lines.joined(separator: "\n"))"
                    )
                } else {
                    block!.append(line)
                }
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 6)
    }
}
