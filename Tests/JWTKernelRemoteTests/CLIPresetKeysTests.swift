import Foundation
import JWTKernelTestSupport
import XCTest

/// `jwtk verify --provider` with keys from `--jwks` files (offline), from a mirror
/// (`--jwks-url`, or `jwks_url` in an `--issuer-config` provider entry, served by the
/// loopback server), and the strict reading of `--issuer-config`. Tokens are RS256
/// (every preset but LINE allows RS256 only), signed with a key the `openssl` command made.
final class CLIPresetKeysTests: XCTestCase {
    static let apple = "https://appleid.apple.com"
    static let app = "com.example.app"
    /// Proxies on a closed port: any attempt to reach the provider fails, so a valid result proves none was made.
    static let noNetwork = [
        "https_proxy": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9", "http_proxy": "http://127.0.0.1:9",
        "ALL_PROXY": "http://127.0.0.1:9", "all_proxy": "http://127.0.0.1:9", "no_proxy": "", "NO_PROXY": "",
    ]

    var server: LoopbackServer!
    var key: OpenSSLRSAKey!
    var files: [URL] = []

    override func setUpWithError() throws {
        server = try LoopbackServer()
        key = try OpenSSLRSAKey(kid: "apple-1")
    }

    override func tearDown() {
        server.stop()
        for file in files { try? FileManager.default.removeItem(at: file) }
    }

    func file(_ text: String, _ ext: String = "json") throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jwtk-preset-\(UUID().uuidString).\(ext)")
        try Data(text.utf8).write(to: url)
        files.append(url)
        return url.path
    }

    func appleToken(aud: String = app, iat: Bool = true) throws -> String {
        try key.token(
            claims: #"{"iss":"\#(Self.apple)","aud":"\#(aud)","sub":"001","#
                + (iat ? #""iat":1700000000,"# : "") + #""exp":4000000000}"#)
    }

    func results(_ r: (status: Int32, stdout: [String], stderr: String)) -> [String] {
        r.stdout.map { line in
            line.hasPrefix(#"{"valid":true"#)
                ? "valid"
                : (line.range(of: #""error":"[a-z_]+""#, options: .regularExpression).map { String(line[$0]) } ?? line)
        }
    }

    // MARK: Offline: --provider with --jwks

    func testProviderWithKeyFilesVerifiesOfflineUnderThePresetsPolicy() throws {
        let saved = try file(try key.jwks())
        let wrongIssuer = try key.token(
            claims: #"{"iss":"https://evil.test","aud":"\#(Self.app)","sub":"1","iat":1,"exp":4000000000}"#)
        let r = try CLIRemoteTests.run(
            [
                "verify", "--provider", "apple", "--aud", Self.app, "--jwks", saved,
                try appleToken(), try appleToken(aud: "other"), try appleToken(iat: false), wrongIssuer,
            ], environment: Self.noNetwork)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(
            results(r),
            ["valid", #""error":"bad_audience""#, #""error":"missing_claim""#, #""error":"unknown_issuer""#],
            r.stderr)
        XCTAssertEqual(r.stderr, "", "nothing fetched, nothing to warn about")
    }

    /// A PEM file (which names no kid) and a `{kid: PEM}` map, each starting with a newline.
    func testProviderWithPEMKeysStartingWithANewline() throws {
        let pem = try file("\n" + (try key.publicPEM()), "pem")
        let listing = try CLIRemoteTests.run(["jwks", pem])
        XCTAssertEqual(listing.status, 0, listing.stderr)
        XCTAssertTrue(listing.stdout.first?.contains(#""kty":"RSA""#) == true, "\(listing.stdout)")
        let map = try file(#"{"apple-1": "\n\#(try key.publicPEM().replacingOccurrences(of: "\n", with: "\\n"))"}"#)
        let r = try CLIRemoteTests.run(
            ["verify", "--provider", "apple", "--aud", Self.app, "--jwks", map, try appleToken()],
            environment: Self.noNetwork)
        XCTAssertEqual(results(r), ["valid"], r.stderr)
        XCTAssertEqual(r.status, 0)
    }

    // MARK: Mirrors

    func testProviderWithAMirrorURL() throws {
        server.serve("/mirror/apple", json: try key.jwks())
        let r = try CLIRemoteTests.run([
            "verify", "--provider", "apple", "--aud", Self.app, "--jwks-url", server.url("/mirror/apple"),
            try appleToken(), try appleToken(iat: false),
        ])
        XCTAssertEqual(results(r), ["valid", #""error":"missing_claim""#], r.stderr)
        XCTAssertEqual(server.requests("/mirror/apple"), 1)
    }

    func testIssuerConfigProviderEntryWithAMirror() throws {
        server.serve("/mirror/apple", json: try key.jwks())
        server.serve("/own", json: RemoteKit.jwks(["o1"]))
        let config = try file(
            #"""
            {"issuers": [
              {"provider": "apple", "audiences": ["\#(Self.app)"], "jwks_url": "\#(server.url("/mirror/apple"))"},
              {"issuer": "\#(RemoteKit.issuer)", "jwks_url": "\#(server.url("/own"))", "audiences": ["app"]}
            ]}
            """#)
        let r = try CLIRemoteTests.run(
            ["verify", "--issuer-config", config, try appleToken(), RemoteKit.token(server, kid: "o1")])
        XCTAssertEqual(results(r), ["valid", "valid"], r.stderr)
        XCTAssertEqual(server.requests("/mirror/apple"), 1, "the mirror, not the provider")
    }

    // MARK: Nothing ignored

    func testIssuerConfigMembersAreCheckedAndNamed() throws {
        let url = server.url("/k")
        let cases: [(String, String)] = [
            (#"{"issuers":[{"issuer":"i","jwks_url":"\#(url)","audience":["a"]}]}"#, #""audience""#),
            (#"{"issuers":[{"provider":"apple","audiences":["a"],"jwks_uri":"\#(url)"}]}"#, #""jwks_uri""#),
            (#"{"issuers":[{"issuer":"i","jwks_url":"\#(url)"}],"version":1}"#, #""version""#),
            (#"{"issuers":[{"provider":"apple","audiences":["a"],"issuer":"i"}]}"#, #""issuer""#),
            (#"{"issuers":[{"provider":"apple","audiences":["a"],"algorithms":["ES256"]}]}"#, #""algorithms""#),
            (#"{"issuers":[{"provider":"google","audiences":["a"],"tenant":"t"}]}"#, #""tenant""#),
            (#"{"issuers":[{"issuer":"i","jwks_url":7}]}"#, #""jwks_url""#),
            (#"{"issuers":[{"issuer":"i","jwks_url":"\#(url)","audiences":"a"}]}"#, #""audiences""#),
            (#"{"issuers":[{"issuer":"i","issuer":"j","jwks_url":"\#(url)"}]}"#, "duplicate"),
        ]
        for (text, named) in cases {
            let r = try CLIRemoteTests.run(["verify", "--issuer-config", try file(text), "x.y.z"])
            XCTAssertEqual(r.status, 2, text)
            XCTAssertTrue(r.stderr.contains(named), "\(text): \(r.stderr)")
            XCTAssertTrue(r.stdout.isEmpty, text)
        }
    }

    func testOptionsAPresetWouldNotUseAreRefused() throws {
        let saved = try file(try key.jwks())
        let refused: [[String]] = [
            ["--provider", "apple", "--aud", Self.app, "--jwks", saved, "--jwks-url", server.url("/k")],
            ["--provider", "apple", "--aud", Self.app, "--iss", "https://other.test", "--jwks", saved],
            ["--provider", "apple", "--aud", Self.app, "--tenant", "t", "--jwks", saved],
            ["--issuer-config", saved, "--aud", Self.app],
            ["--jwks-url", server.url("/k"), "--iss", "i", "--jwks", saved],
        ]
        for args in refused {
            let r = try CLIRemoteTests.run(["verify"] + args + ["x.y.z"])
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stdout.isEmpty)
        }
    }
}
