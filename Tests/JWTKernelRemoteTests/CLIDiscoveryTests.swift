import Foundation
import JWTKernelTestSupport
import XCTest

@testable import JWTKernel

/// `jwtk verify --oidc ISSUER` and `"discovery": true` in `--issuer-config` against the loopback
/// server, whose origin is the issuer: the document then the keys, a document of another issuer or
/// without jwks_uri refused with a message naming why, and the option mixes that are refused.
final class CLIDiscoveryTests: XCTestCase {
    static let wellKnown = "/.well-known/openid-configuration"
    var server: LoopbackServer!

    override func setUpWithError() throws { server = try LoopbackServer() }
    override func tearDown() { server.stop() }

    var issuer: String { server.url("") }

    func serveDocument(issuer named: String? = nil, jwksURI: String? = nil, at prefix: String = "") {
        var members = [#""issuer":"\#(named ?? issuer + prefix)""#]
        if let jwksURI { members.append(#""jwks_uri":"\#(jwksURI)""#) }
        server.serve(prefix + Self.wellKnown, json: "{" + members.joined(separator: ",") + "}")
    }

    func file(_ text: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("oidc-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url.path
    }

    func results(_ r: (status: Int32, stdout: [String], stderr: String)) -> [String] {
        r.stdout.map { line in
            line.contains(#""valid":true"#)
                ? "valid"
                : (line.components(separatedBy: #""error":""#).dropFirst().first?.prefix { $0 != "\"" })
                    .map(String.init) ?? line
        }
    }

    func testOIDCFindsTheKeysThroughTheDocument() throws {
        serveDocument(jwksURI: server.url("/keys"))
        server.serve("/keys", json: RemoteKit.jwks(["k1"]))
        let good = RemoteKit.token(server, kid: "k1", iss: issuer)
        let unknown = RemoteKit.token(server, kid: "zz", iss: issuer)
        let stranger = RemoteKit.token(server, kid: "k1", iss: "https://other.test")
        let r = try CLIRemoteTests.run(["verify", "--oidc", issuer, "--aud", "app", good, unknown, stranger])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(results(r), ["valid", "unknown_kid", "unknown_issuer"], r.stderr)
        XCTAssertEqual(server.requests(Self.wellKnown), 1)
        XCTAssertEqual(server.requests("/keys"), 1, "fetched once, before the first token")
        let wrongAudience = try CLIRemoteTests.run(["verify", "--oidc", issuer, "--aud", "other", good])
        XCTAssertEqual(results(wrongAudience), ["bad_audience"], wrongAudience.stderr)
    }

    func testADocumentOfAnotherIssuerIsRefusedNamingBoth() throws {
        serveDocument(issuer: "https://other.example", jwksURI: server.url("/keys"))
        server.serve("/keys", json: RemoteKit.jwks(["k1"]))
        let r = try CLIRemoteTests.run(["verify", "--oidc", issuer, RemoteKit.token(server, kid: "k1", iss: issuer)])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains(#"names issuer "https://other.example""#), r.stderr)
        XCTAssertTrue(r.stderr.contains(#"not the configured "\#(issuer)""#), r.stderr)
        XCTAssertEqual(server.requests("/keys"), 0)
        XCTAssertTrue(r.stdout.isEmpty)
    }

    /// `ISSUER/` fetches the same document as `ISSUER`, but names another issuer than the document's.
    func testATrailingSlashIsAnotherIssuer() throws {
        serveDocument(jwksURI: server.url("/keys"))
        server.serve("/keys", json: RemoteKit.jwks(["k1"]))
        let r = try CLIRemoteTests.run(["verify", "--oidc", issuer + "/", "x.y.z"])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains(#"not the configured "\#(issuer)/""#), r.stderr)
        XCTAssertEqual(server.requests(Self.wellKnown), 1)
    }

    func testADocumentWithoutJWKSURIIsRefused() throws {
        serveDocument()
        let r = try CLIRemoteTests.run(["verify", "--oidc", issuer, "x.y.z"])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains(#"has no "jwks_uri""#), r.stderr)
        server.set(Self.wellKnown, ["status": 500, "body": ""])
        let down = try CLIRemoteTests.run(["verify", "--oidc", issuer, "x.y.z"])
        XCTAssertEqual(down.status, 2, down.stderr)
        XCTAssertTrue(down.stderr.contains("HTTP status 500"), down.stderr)
    }

    func testIssuerConfigWithDiscoveryEntries() throws {
        serveDocument(jwksURI: server.url("/keys/a"), at: "/a")
        server.serve("/keys/a", json: RemoteKit.jwks(["a1"]))
        server.serve("/keys/b", json: RemoteKit.jwks(["b1"]))
        let a = issuer + "/a"
        let config = try file(
            #"""
            {"issuers": [
              {"issuer": "\#(a)", "discovery": true, "audiences": ["app"], "algorithms": ["HS256"]},
              {"issuer": "https://b.test", "jwks_url": "\#(server.url("/keys/b"))", "discovery": false}
            ]}
            """#)
        let r = try CLIRemoteTests.run([
            "verify", "--issuer-config", config, RemoteKit.token(server, kid: "a1", iss: a),
            RemoteKit.token(server, kid: "b1", iss: "https://b.test"), RemoteKit.token(server, kid: "b1", iss: a),
        ])
        XCTAssertEqual(results(r), ["valid", "valid", "unknown_kid"], r.stderr)
        XCTAssertEqual(server.requests("/a" + Self.wellKnown), 1)
    }

    func testIssuerConfigDiscoveryMembersAreChecked() throws {
        let url = server.url("/k")
        let cases: [(String, String)] = [
            (#"{"issuers":[{"issuer":"\#(issuer)","discovery":true,"jwks_url":"\#(url)"}]}"#, #"drop "jwks_url""#),
            (
                #"{"issuers":[{"provider":"apple","audiences":["a"],"discovery":true}]}"#,
                #""discovery": not with provider"#
            ),
            (#"{"issuers":[{"issuer":"\#(issuer)","discovery":"yes"}]}"#, #""discovery": expected true or false"#),
            (#"{"issuers":[{"discovery":true}]}"#, #""discovery": needs "issuers" (or "issuer")"#),
            (#"{"issuers":[{"issuer":"\#(issuer)","discovery":false}]}"#, #""issuer" and "jwks_url""#),
            (
                #"{"issuers":[{"issuer":"http://idp.example","discovery":true}]}"#,
                "plain http is allowed only to loopback"
            ),
        ]
        for (text, named) in cases {
            let r = try CLIRemoteTests.run(["verify", "--issuer-config", try file(text), "x.y.z"])
            XCTAssertEqual(r.status, 2, text)
            XCTAssertTrue(r.stderr.contains(named), "\(text): \(r.stderr)")
            XCTAssertTrue(r.stdout.isEmpty, text)
        }
    }

    func testOptionsBesideOIDCAreRefused() throws {
        let saved = try file(RemoteKit.jwks(["k1"]))
        let refused: [([String], String)] = [
            (["--oidc", issuer, "--iss", issuer], "drop --iss"),
            (["--oidc", issuer, "--jwks-url", server.url("/k")], "--oidc"),
            (["--oidc", issuer, "--jwks", saved], "--oidc"),
            (["--oidc", issuer, "--provider", "apple", "--aud", "a"], "--oidc"),
            (["--oidc", issuer, "--issuer-config", saved], "--oidc"),
            (["--oidc", "http://idp.example"], "plain http is allowed only to loopback"),
            (["--oidc", "https://idp.example?tenant=1"], "no query or fragment"),
        ]
        for (args, words) in refused {
            let r = try CLIRemoteTests.run(["verify"] + args + ["x.y.z"])
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(words), "\(args): \(r.stderr)")
            XCTAssertTrue(r.stdout.isEmpty)
        }
    }
}
