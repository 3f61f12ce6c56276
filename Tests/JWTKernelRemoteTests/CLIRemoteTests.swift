import Foundation
import JWTKernelTestSupport
import XCTest

@testable import JWTKernel

/// `jwtk verify --jwks-url / --issuer-config` and `jwtk jwks URL` against the loopback server.
/// Presets' real key URLs are never contacted from tests (no network beyond loopback).
final class CLIRemoteTests: XCTestCase {
    var server: LoopbackServer!

    override func setUpWithError() throws { server = try LoopbackServer() }
    override func tearDown() { server.stop() }

    static func binary() throws -> URL {
        var candidates: [URL] = []
        if let explicit = ProcessInfo.processInfo.environment["JWTK_BINARY"] {
            candidates.append(URL(fileURLWithPath: explicit))
        }
        let argv0 = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        candidates.append(argv0.deletingLastPathComponent().appendingPathComponent("jwtk"))
        for bundle in [Bundle.main, Bundle.module] + Bundle.allBundles {
            candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("jwtk"))
            candidates.append(bundle.bundleURL.appendingPathComponent("jwtk"))
        }
        for url in candidates {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                FileManager.default.isExecutableFile(atPath: url.path)
            {
                return url
            }
        }
        throw XCTSkip(
            "jwtk binary not found next to the test bundle; build it first (`swift build`) or set JWTK_BINARY")
    }

    func run(_ args: [String]) throws -> (status: Int32, stdout: [String], stderr: String) {
        try Self.run(args)
    }

    /// `extra` is added to the environment (a test that must not reach the network sets dead proxies).
    static func run(
        _ args: [String], environment extra: [String: String] = [:]
    ) throws -> (status: Int32, stdout: [String], stderr: String) {
        let process = Process()
        process.executableURL = try Self.binary()
        process.arguments = args
        var environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = String(decoding: stdout, as: UTF8.self).split(separator: "\n").map(String.init)
        return (process.terminationStatus, lines, String(decoding: stderr, as: UTF8.self))
    }

    func testVerifyWithKeysFromAURL() throws {
        server.serve("/a", json: RemoteKit.jwks(["a1"]))
        let good = RemoteKit.token(server, kid: "a1")
        let unknown = RemoteKit.token(server, kid: "zz")
        let r = try run([
            "verify", "--jwks-url", server.url("/a"), "--iss", RemoteKit.issuer, "--aud", "app", good, unknown,
        ])
        XCTAssertEqual(r.status, 1, r.stderr)
        guard r.stdout.count == 2 else { return XCTFail("expected 2 lines: \(r.stdout) \(r.stderr)") }
        XCTAssertTrue(r.stdout[0].hasPrefix(#"{"valid":true,"alg":"HS256","kid":"a1""#), r.stdout[0])
        XCTAssertTrue(r.stdout[1].contains(#""error":"unknown_kid""#), r.stdout[1])
        XCTAssertEqual(server.requests("/a"), 1, "fetched once, before the first token")
    }

    func testVerifyWithAnIssuerConfigurationFile() throws {
        server.serve("/a", json: RemoteKit.jwks(["a1"]))
        server.serve("/b", json: RemoteKit.jwks(["b1"]))
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("issuers-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: config) }
        try Data(
            #"""
            {"issuers": [
              {"issuer": "https://a.test", "jwks_url": "\#(server.url("/a"))", "audiences": ["app"]},
              {"issuer": "https://b.test", "jwks_url": "\#(server.url("/b"))", "audiences": ["app"], "algorithms": ["HS256"]}
            ]}
            """#.utf8
        ).write(to: config)
        let a = RemoteKit.token(server, kid: "a1", iss: "https://a.test")
        let b = RemoteKit.token(server, kid: "b1", iss: "https://b.test")
        let crossed = RemoteKit.token(server, kid: "a1", iss: "https://b.test")
        let stranger = RemoteKit.token(server, kid: "a1", iss: "https://c.test")
        let r = try run(["verify", "--issuer-config", config.path, a, b, crossed, stranger])
        XCTAssertEqual(r.status, 1, r.stderr)
        guard r.stdout.count == 4 else { return XCTFail("expected 4 lines: \(r.stdout) \(r.stderr)") }
        XCTAssertTrue(r.stdout[0].contains(#""valid":true"#), r.stdout[0])
        XCTAssertTrue(r.stdout[1].contains(#""valid":true"#), r.stdout[1])
        XCTAssertTrue(r.stdout[2].contains(#""error":"unknown_kid""#), r.stdout[2])
        XCTAssertTrue(r.stdout[3].contains(#""error":"unknown_issuer""#), r.stdout[3])
    }

    func testKeyURLThatNeverLoadsIsAConfigurationError() throws {
        server.set("/down", ["status": 500, "body": ""])
        let r = try run(["verify", "--jwks-url", server.url("/down"), "--iss", RemoteKit.issuer, "x.y.z"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("HTTP status 500"), r.stderr)
    }

    func testUsageErrors() throws {
        XCTAssertEqual(
            try run(["verify", "--jwks-url", server.url("/a"), "x.y.z"]).status, 2, "--jwks-url needs one --iss")
        XCTAssertEqual(try run(["verify", "--provider", "nosuch", "--aud", "x", "x.y.z"]).status, 2)
        let noAudience = try run(["verify", "--provider", "google", "x.y.z"])
        XCTAssertEqual(noAudience.status, 2, "--provider needs --aud")
        XCTAssertTrue(noAudience.stderr.contains("--aud (the app's OAuth client IDs)"), noAudience.stderr)
        let emptyAudience = try run(["verify", "--provider", "apple", "--aud", "", "x.y.z"])
        XCTAssertEqual(emptyAudience.status, 2, "an empty --aud is no audience")
        XCTAssertTrue(emptyAudience.stderr.contains("empty audience"), emptyAudience.stderr)
        XCTAssertEqual(
            try run([
                "verify", "--provider", "google", "--jwks-url", server.url("/a"), "--iss", "i", "--aud", "x", "x.y.z",
            ]).status, 2)
    }

    func testJWKSCommandListsKeysFromAURL() throws {
        let doc =
            #"{"keys":[\#(RemoteKit.jwks(["s1"]).dropFirst(9).dropLast(2)),"#
            + #"{"kty":"EC","crv":"P-256","kid":"ec","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},"#
            + #"{"kty":"RSA","kid":"tiny","n":"AQAB","e":"AQAB"}]}"#
        server.serve("/keys", json: doc)
        let r = try run(["jwks", server.url("/keys")])
        XCTAssertEqual(r.status, 0, r.stderr)
        guard r.stdout.count == 3 else { return XCTFail("expected 3 lines: \(r.stdout) \(r.stderr)") }
        let objects = r.stdout.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        XCTAssertEqual(objects.map { $0["kid"] as? String }, ["s1", "ec", "tiny"])
        XCTAssertEqual(objects[1]["crv"] as? String, "P-256")
        XCTAssertEqual(objects[1]["alg"] as? [String], ["ES256"])
        XCTAssertNotNil(objects[1]["thumbprint"] as? String)
        XCTAssertNotNil(objects[2]["refused"] as? String)
        server.set("/html", ["status": 200, "body": "<html>", "headers": ["Content-Type": "text/html"]])
        XCTAssertEqual(try run(["jwks", server.url("/html")]).status, 2)
    }
}
