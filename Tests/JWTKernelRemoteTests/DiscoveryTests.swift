import JWTKernelTestSupport
import XCTest

@testable import JWTKernel
@testable import JWTKernelRemote

/// OpenID Connect discovery in the refresher, against the real loopback server on a hand-moved
/// clock: the document then the keys, the exact issuer comparison, a missing or unusable jwks_uri,
/// rotation of keys and of jwks_uri, and failures of either endpoint while the other serves.
final class DiscoveryTests: XCTestCase {
    static let wellKnown = "/.well-known/openid-configuration"
    var server: LoopbackServer!
    let clock = ManualClock()
    var store: KeyStore! = KeyStore()

    override func setUpWithError() throws { server = try LoopbackServer() }
    override func tearDown() {
        server.stop()
        store = nil
    }

    /// The loopback server's origin: an issuer whose document is at /.well-known/openid-configuration.
    var issuer: String { server.url("") }

    func document(issuer: String? = nil, jwksURI: String?) -> String {
        var members = [#""issuer":"\#(issuer ?? self.issuer)""#, #""id_token_signing_alg_values_supported":["HS256"]"#]
        if let jwksURI { members.append(#""jwks_uri":"\#(jwksURI)""#) }
        return "{" + members.joined(separator: ",") + "}"
    }

    func refresher(
        issuer configured: String? = nil, _ configure: (inout RefreshPolicy) -> Void = { _ in }
    ) throws -> KeyRefresher {
        var policy = RefreshPolicy()
        configure(&policy)
        let refresher = KeyRefresher(store: store, policy: policy, clock: clock)
        var config = HTTPKeySourceConfiguration()
        config.totalTimeout = 1
        refresher.add(discovery: try OpenIDDiscovery(issuer: configured ?? issuer, configuration: config))
        return refresher
    }

    func token(_ kid: String, iss: String? = nil) -> String { RemoteKit.token(server, kid: kid, iss: iss ?? issuer) }

    func testDiscoveryThenKeys() throws {
        server.serve(Self.wellKnown, json: document(jwksURI: server.url("/keys")))
        server.serve("/keys", json: RemoteKit.jwks(["k1"]))
        let r = try refresher()
        let verifier = RemoteKit.verifier(store, issuers: [issuer])
        XCTAssertEqual(verifier.check(token("k1"))?.code, .keysUnavailable, "nothing fetched before the first pass")
        XCTAssertEqual(r.refreshDue(), 2, "the document, then the keys it names")
        XCTAssertNil(verifier.check(token("k1")))
        XCTAssertEqual(r.refreshDue(), 0)
        let stats = try XCTUnwrap(r.stats(issuer: issuer))
        XCTAssertEqual(stats.fetches, 1)
        XCTAssertEqual(stats.keysLoaded, 1)
        let discovery = try XCTUnwrap(stats.discovery)
        XCTAssertEqual(discovery.documentURL, issuer + Self.wellKnown)
        XCTAssertEqual(discovery.jwksURI, server.url("/keys"))
        XCTAssertEqual(discovery.fetches, 1)
        XCTAssertEqual(discovery.totalFailures, 0)
        // The document's default schedule: 24 h without max-age, refreshed at 80 %.
        XCTAssertEqual(try XCTUnwrap(discovery.nextAttemptAt) - clock.now(), 86_400 * 0.8, accuracy: 0.01)
        XCTAssertEqual(server.requests(Self.wellKnown), 1)
        XCTAssertEqual(server.requests("/keys"), 1)
    }

    func testDocumentNamingAnotherIssuerIsRefused() throws {
        server.serve(Self.wellKnown, json: document(issuer: "https://other.example", jwksURI: server.url("/keys")))
        server.serve("/keys", json: RemoteKit.jwks(["k1"]))
        let r = try refresher()
        r.refreshDue()
        let verifier = RemoteKit.verifier(store, issuers: [issuer])
        XCTAssertEqual(verifier.check(token("k1"))?.code, .keysUnavailable)
        let stats = try XCTUnwrap(r.stats(issuer: issuer))
        let message = try XCTUnwrap(stats.discovery?.lastError)
        XCTAssertTrue(message.contains(#"names issuer "https://other.example""#), message)
        XCTAssertTrue(message.contains(#"not the configured "\#(issuer)""#), message)
        XCTAssertEqual(stats.discovery?.failures["bad_document"], 1)
        XCTAssertNil(stats.discovery?.jwksURI)
        XCTAssertEqual(stats.lastError, message, "the key fetch fails with the document's reason")
        XCTAssertEqual(server.requests("/keys"), 0, "keys are never fetched from a refused document")
        XCTAssertFalse(stats.hasKeys)
    }

    func testDocumentWithoutAUsableJWKSURIIsRefused() throws {
        server.serve("/keys", json: RemoteKit.jwks(["k1"]))
        let cases: [(String, String, String)] = [
            (document(jwksURI: nil), "bad_document", #"has no "jwks_uri""#),
            (#"{"issuer":"\#(issuer)","jwks_uri":42}"#, "bad_document", #""jwks_uri" is not a string"#),
            (document(jwksURI: "http://keys.example/jwks"), "refused_url", "plain http is allowed only to loopback"),
            (document(jwksURI: "ftp://127.0.0.1/keys"), "refused_url", "only https"),
            (#"{"jwks_uri":"\#(server.url("/keys"))"}"#, "bad_document", #"no "issuer" string"#),
            (#"{"issuer":"\#(issuer)","issuer":"\#(issuer)","jwks_uri":"x"}"#, "bad_document", "not valid JSON"),
            ("[1]", "bad_document", "not a JSON object"),
        ]
        for (body, reason, words) in cases {
            store = KeyStore()
            server.serve(Self.wellKnown, json: body)
            let r = try refresher()
            r.refreshDue()
            let stats = try XCTUnwrap(r.stats(issuer: issuer))
            XCTAssertEqual(stats.discovery?.failures[reason], 1, body)
            XCTAssertTrue(
                stats.discovery?.lastError?.contains(words) ?? false, "\(body): \(stats.discovery?.lastError ?? "")")
            XCTAssertFalse(stats.hasKeys, body)
        }
        XCTAssertEqual(server.requests("/keys"), 0)
    }

    /// Section 4: the document URL drops the issuer's trailing slash; section 4.3: the comparison does not.
    func testTrailingSlashIssuer() throws {
        XCTAssertEqual(
            OpenIDDiscovery.documentURL(forIssuer: "https://x/"), "https://x/.well-known/openid-configuration")
        XCTAssertEqual(
            OpenIDDiscovery.documentURL(forIssuer: "https://x"), "https://x/.well-known/openid-configuration")
        XCTAssertEqual(
            OpenIDDiscovery.documentURL(forIssuer: "https://x/tenant/"),
            "https://x/tenant/.well-known/openid-configuration")
        server.serve("/keys", json: RemoteKit.jwks(["k1"]))
        // Configured with a slash, the document (same URL) names it without: refused, and the reverse.
        for (configured, named) in [(issuer + "/", issuer), (issuer, issuer + "/")] {
            store = KeyStore()
            server.serve(Self.wellKnown, json: document(issuer: named, jwksURI: server.url("/keys")))
            let r = try refresher(issuer: configured)
            r.refreshDue()
            let stats = try XCTUnwrap(r.stats(issuer: configured))
            XCTAssertEqual(stats.discovery?.documentURL, issuer + Self.wellKnown)
            XCTAssertEqual(stats.discovery?.failures["bad_document"], 1, configured)
            XCTAssertFalse(stats.hasKeys)
        }
        // Named exactly as configured, with its slash: accepted, and tokens must carry that iss.
        store = KeyStore()
        server.serve(Self.wellKnown, json: document(issuer: issuer + "/", jwksURI: server.url("/keys")))
        let r = try refresher(issuer: issuer + "/")
        XCTAssertEqual(r.refreshDue(), 2)
        XCTAssertNil(RemoteKit.verifier(store, issuers: [issuer + "/"]).check(token("k1", iss: issuer + "/")))
        // An issuer with a path: its document under that path.
        store = KeyStore()
        server.serve(
            "/tenant" + Self.wellKnown, json: document(issuer: issuer + "/tenant", jwksURI: server.url("/keys")))
        let t = try refresher(issuer: issuer + "/tenant")
        XCTAssertEqual(t.refreshDue(), 2)
        XCTAssertEqual(t.stats(issuer: issuer + "/tenant")?.keysLoaded, 1)
    }

    func testIssuersThatAreNotDiscoverable() {
        for bad in ["", "http://issuer.example", "https://x?tenant=1", "https://x#f", "ftp://x", "not a url"] {
            XCTAssertThrowsError(try OpenIDDiscovery(issuer: bad), bad) { error in
                XCTAssertEqual((error as? KeySourceError)?.reason, .refusedURL, bad)
            }
        }
        XCTAssertNoThrow(try OpenIDDiscovery(issuer: "http://localhost:8080"))
        XCTAssertNoThrow(try OpenIDDiscovery(issuer: "https://accounts.example.com"))
    }

    func testRotationOfKeysAndOfTheJWKSURI() throws {
        server.serve(
            Self.wellKnown, json: document(jwksURI: server.url("/keys")), headers: ["Cache-Control": "max-age=1000"],
            etag: "\"d1\"")
        server.serve("/keys", json: RemoteKit.jwks(["k1"]), headers: ["Cache-Control": "max-age=100"])
        let r = try refresher()
        let verifier = RemoteKit.verifier(store, issuers: [issuer])
        XCTAssertEqual(r.refreshDue(), 2)
        XCTAssertNil(verifier.check(token("k1")))

        // Keys rotate on their own schedule (80 s); the document is not fetched with them.
        server.serve("/keys", json: RemoteKit.jwks(["k2"]), headers: ["Cache-Control": "max-age=100"])
        clock.advance(81)
        XCTAssertEqual(r.refreshDue(), 1)
        XCTAssertNil(verifier.check(token("k2")))
        XCTAssertEqual(server.requests(Self.wellKnown), 1)

        // The document (800 s: 80 % of its max-age) answers 304 while unchanged.
        clock.advance(720)
        r.refreshDue()
        XCTAssertEqual(server.conditionalHeaders(Self.wellKnown), [nil, "\"d1\""])
        XCTAssertEqual(r.stats(issuer: issuer)?.discovery?.notModified, 1)

        // A new jwks_uri: used from the next key fetch, without the old URL's validator.
        server.serve("/keys", json: RemoteKit.jwks(["k2"]), headers: ["Cache-Control": "max-age=100"], etag: "\"old\"")
        clock.advance(81)
        r.refreshDue()
        server.serve("/keys2", json: RemoteKit.jwks(["k3"]), headers: ["Cache-Control": "max-age=100"])
        server.serve(
            Self.wellKnown, json: document(jwksURI: server.url("/keys2")), headers: ["Cache-Control": "max-age=1000"],
            etag: "\"d2\"")
        XCTAssertTrue(r.refreshNow(issuer: issuer), "the document, then the keys at the new URL")
        XCTAssertNil(verifier.check(token("k3")))
        XCTAssertEqual(verifier.check(token("k2"))?.code, .unknownKid)
        XCTAssertEqual(server.conditionalHeaders("/keys2"), [nil])
        let discovery = try XCTUnwrap(r.stats(issuer: issuer)?.discovery)
        XCTAssertEqual(discovery.jwksURI, server.url("/keys2"))
        XCTAssertEqual(discovery.jwksURIChanges, 1)
    }

    func testDocumentFailuresKeepTheLastGoodJWKSURI() throws {
        server.serve(
            Self.wellKnown, json: document(jwksURI: server.url("/keys")), headers: ["Cache-Control": "max-age=400"])
        server.serve("/keys", json: RemoteKit.jwks(["k1"]), headers: ["Cache-Control": "max-age=1000"])
        let r = try refresher()
        let verifier = RemoteKit.verifier(store, issuers: [issuer])
        XCTAssertEqual(r.refreshDue(), 2)
        var rotation = 1
        for (route, reason) in [
            (["status": 500, "body": "down"], "http_status"),
            (["status": 200, "body": "<html>"], "bad_document"),
            (["mode": "hang", "seconds": 3, "body": "{}"], "timeout"),
            (
                ["status": 200, "body": document(issuer: "https://mixup.example", jwksURI: "https://evil.example/k")],
                "bad_document"
            ),
        ] as [([String: Any], String)] {
            server.set(Self.wellKnown, route)
            rotation += 1
            server.serve("/keys", json: RemoteKit.jwks(["k\(rotation)"]), headers: ["Cache-Control": "max-age=1000"])
            clock.advance(801)  // both due: the document fails, the keys come from the last good jwks_uri
            XCTAssertEqual(r.refreshDue(), 2, reason)
            XCTAssertNil(verifier.check(token("k\(rotation)")), reason)
            let stats = try XCTUnwrap(r.stats(issuer: issuer))
            XCTAssertEqual(stats.discovery?.jwksURI, server.url("/keys"))
            XCTAssertTrue(stats.discovery?.lastError?.hasPrefix(reason) ?? false, stats.discovery?.lastError ?? "")
            XCTAssertNil(stats.lastError, "the keys are fine")
            XCTAssertFalse(stats.isStale)
        }
        let discovery = try XCTUnwrap(r.stats(issuer: issuer)?.discovery)
        XCTAssertEqual(discovery.failures, ["http_status": 1, "bad_document": 2, "timeout": 1])
        XCTAssertEqual(discovery.consecutiveFailures, 4)
        // The document's retries back off (1, 2, 4, 8 s) rather than wait out its lifetime.
        XCTAssertEqual(try XCTUnwrap(discovery.nextAttemptAt) - clock.now(), 8, accuracy: 0.5)
        server.serve(Self.wellKnown, json: document(jwksURI: server.url("/keys")))
        clock.advance(9)
        XCTAssertEqual(r.refreshDue(), 1, "only the document is due")
        XCTAssertEqual(r.stats(issuer: issuer)?.discovery?.consecutiveFailures, 0)
    }

    func testKeysEndpointFailingWhileTheDocumentIsFine() throws {
        server.serve(
            Self.wellKnown, json: document(jwksURI: server.url("/keys")), headers: ["Cache-Control": "max-age=100"])
        server.serve("/keys", json: RemoteKit.jwks(["k1"]), headers: ["Cache-Control": "max-age=100"])
        let r = try refresher { $0.maxStaleness = 500 }
        let verifier = RemoteKit.verifier(store, issuers: [issuer])
        XCTAssertEqual(r.refreshDue(), 2)
        server.set("/keys", ["status": 503, "body": ""])
        clock.advance(301)  // the document: min 300 s; the keys: 80 s
        XCTAssertEqual(r.refreshDue(), 2)
        XCTAssertNil(verifier.check(token("k1")), "the last good keys, stale, still verify")
        var stats = try XCTUnwrap(r.stats(issuer: issuer))
        XCTAssertTrue(stats.isStale)
        XCTAssertEqual(stats.failures["http_status"], 1)
        XCTAssertNil(stats.discovery?.lastError)
        XCTAssertEqual(stats.discovery?.fetches, 2)
        // Past max staleness: withdrawn, as for any remote source.
        clock.advance(300)
        r.refreshDue()
        XCTAssertEqual(verifier.check(token("k1"))?.code, .keysUnavailable)
        stats = try XCTUnwrap(r.stats(issuer: issuer))
        XCTAssertFalse(stats.hasKeys)
    }

    func testAFirstDocumentFailureFailsTheKeyFetchWithItsReasonThenRecovers() throws {
        server.set(Self.wellKnown, ["status": 500, "body": ""])
        server.serve("/keys", json: RemoteKit.jwks(["k1"]))
        let r = try refresher { $0.initialBackoff = 2 }
        XCTAssertEqual(r.refreshDue(), 2)
        var stats = try XCTUnwrap(r.stats(issuer: issuer))
        XCTAssertEqual(stats.lastError, "http_status: discovery document \(issuer + Self.wellKnown): HTTP status 500")
        XCTAssertEqual(stats.failures["http_status"], 1)
        XCTAssertEqual(try XCTUnwrap(stats.nextAttemptAt) - clock.now(), 2, accuracy: 0.01, "the keys' backoff")
        XCTAssertEqual(stats.discovery?.nextAttemptAt, stats.nextAttemptAt, "retried with the keys")
        server.serve(Self.wellKnown, json: document(jwksURI: server.url("/keys")))
        clock.advance(2)
        XCTAssertEqual(r.refreshDue(), 2)
        stats = try XCTUnwrap(r.stats(issuer: issuer))
        XCTAssertTrue(stats.hasKeys)
        XCTAssertNil(stats.lastError)
    }

    func testUnknownKidRefetchesKeysNotTheDocument() throws {
        server.serve(Self.wellKnown, json: document(jwksURI: server.url("/keys")))
        server.serve("/keys", json: RemoteKit.jwks(["k1"]))
        let r = try refresher { $0.unknownKidCooldown = 5 }
        let verifier = RemoteKit.verifier(store, issuers: [issuer])
        XCTAssertEqual(r.refreshDue(), 2)
        server.serve("/keys", json: RemoteKit.jwks(["k1", "k2"]))
        clock.advance(6)
        XCTAssertEqual(verifier.check(token("k2"))?.code, .unknownKid)
        XCTAssertEqual(r.refreshDue(), 1)
        XCTAssertNil(verifier.check(token("k2")))
        XCTAssertEqual(server.requests(Self.wellKnown), 1)
        XCTAssertEqual(r.stats(issuer: issuer)?.unknownKidRefreshes, 1)
    }

    func testTheRefresherThreadRunsDiscovery() throws {
        server.serve(Self.wellKnown, json: document(jwksURI: server.url("/keys")))
        server.serve("/keys", json: RemoteKit.jwks(["k1"]))
        let refresher = KeyRefresher(store: store)
        refresher.add(discovery: try OpenIDDiscovery(issuer: issuer))
        refresher.start()
        defer { refresher.stop() }
        let verifier = RemoteKit.verifier(store, issuers: [issuer])
        XCTAssertTrue(RemoteKit.eventually(5) { verifier.check(self.token("k1")) == nil })
    }
}
