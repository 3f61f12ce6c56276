import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JWTKernel
import JWTKernelForwardAuth
import JWTKernelIntegrationTesting
import XCTest

/// The forward-auth agent's routes through a running server (`.live`): token sources, claim headers as
/// they are rendered (arrays joined, objects as JSON, values a header cannot carry left out), /healthz and
/// /metrics. The gateways in front of it are IntegrationTests/forward-auth/run.sh's.
final class ForwardAuthLiveTests: XCTestCase {
    var fixture: LiveFixture!

    override func setUp() async throws { fixture = try await LiveFixture() }
    override func tearDown() async throws { fixture.stop() }

    func application() -> some ApplicationProtocol {
        let configuration = ForwardAuthConfiguration(
            tokenSources: [.authorization, .header(HTTPField.Name("X-Id-Token")!), .cookie("id_token")],
            claimHeaders: [
                ClaimHeader(parsing: "X-Jwt-Sub=sub")!, ClaimHeader(parsing: "X-Jwt-Roles=/https:~1~1ex.com~1roles")!,
                ClaimHeader(parsing: "X-Jwt-Org=org")!, ClaimHeader(parsing: "X-Jwt-Exp=exp")!,
                ClaimHeader(parsing: "X-Jwt-Admin=admin")!, ClaimHeader(parsing: "X-Jwt-Note=note")!,
                ClaimHeader(parsing: "X-Jwt-Missing=missing")!,
            ])
        let router = ForwardAuthRouter.make(
            verifier: fixture.verifier, refresher: fixture.refresher, configuration: configuration,
            metrics: { "jwtk_test_metric 1\n" })
        return LiveFixture.application(router)
    }

    func token(_ extra: String) -> String {
        let f = fixture!
        let exp = Int(Date().timeIntervalSince1970) + 600
        let claims =
            #"{"iss":"\#(f.issuer.issuer)","sub":"user-1","aud":"\#(f.issuer.audience)","exp":\#(exp)\#(extra)}"#
        return f.server.hs256(secret: TestIssuer.secret("k1"), kid: "k1", claims: claims)
    }

    func testClaimHeaders() async throws {
        let valid = token(
            #","https://ex.com/roles":["admin","dev",3],"org":{"id":7},"admin":true,"note":"line\r\nX-Evil: 1""#)
        try await application().test(.live) { client in
            try await client.execute(uri: "/auth", method: .get, headers: [.authorization: "Bearer " + valid]) { r in
                XCTAssertEqual(r.status, .ok)
                XCTAssertEqual(r.headers[HTTPField.Name("X-Jwt-Sub")!], "user-1")
                XCTAssertEqual(r.headers[HTTPField.Name("X-Jwt-Roles")!], "admin,dev,3", "an array of scalars, joined")
                XCTAssertEqual(r.headers[HTTPField.Name("X-Jwt-Org")!], #"{"id":7}"#, "an object as JSON")
                XCTAssertNotNil(r.headers[HTTPField.Name("X-Jwt-Exp")!].flatMap { Int($0) }, "a number as its text")
                XCTAssertEqual(r.headers[HTTPField.Name("X-Jwt-Admin")!], "true")
                XCTAssertEqual(r.headers[HTTPField.Name("X-Jwt-Note")!], "", "a value with CR LF is answered empty")
                XCTAssertNil(r.headers[HTTPField.Name("X-Evil")!], "and injects nothing")
                XCTAssertEqual(r.headers[HTTPField.Name("X-Jwt-Missing")!], "", "a missing claim: empty")
            }
        }
    }

    func testTokenSources() async throws {
        let valid = token("")
        try await application().test(.live) { client in
            let sources: [(HTTPFields, Int)] = [
                ([.authorization: "Bearer " + valid], 200),
                ([HTTPField.Name("X-Id-Token")!: valid], 200),
                ([.cookie: "a=b; id_token=\(valid); c=d"], 200),
                ([.cookie: #"id_token="\#(valid)""#], 200),
                ([.cookie: "xid_token=\(valid)"], 401),
                ([:], 401),
                // The first source with a token decides: a bad one is not passed over for a good one.
                ([.authorization: "Bearer junk", .cookie: "id_token=\(valid)"], 401),
                // Two Authorization headers read as one value ("Bearer a, Bearer b"), which is no token.
                ([.authorization: "Bearer " + valid, .authorization: "Bearer " + valid], 401),
            ]
            for (headers, status) in sources {
                try await client.execute(uri: "/auth/any/path", method: .post, headers: headers) { r in
                    XCTAssertEqual(r.status.code, status, "\(headers)")
                }
            }
            try await client.execute(uri: "/auth", method: .get) { r in
                XCTAssertEqual(r.headers[.wwwAuthenticate], #"Bearer realm="api""#)
            }
            try await client.execute(uri: "/elsewhere", method: .get, headers: [.authorization: "Bearer " + valid]) {
                XCTAssertEqual($0.status, .notFound)
            }
        }
    }

    func testHealthAndMetrics() async throws {
        try await application().test(.live) { client in
            try await client.execute(uri: "/healthz", method: .get) { r in
                XCTAssertEqual(r.status, .serviceUnavailable, "the fixture's down issuer has no keys")
                XCTAssertEqual(
                    String(buffer: r.body),
                    #"{"status":"keys_unavailable","issuers_without_keys":["https://down.test"]}"# + "\n")
            }
            try await client.execute(uri: "/metrics", method: .get) { r in
                XCTAssertEqual(r.status, .ok)
                XCTAssertEqual(String(buffer: r.body), "jwtk_test_metric 1\n")
            }
        }
    }

    func testParsing() {
        XCTAssertEqual(TokenSource(parsing: "authorization"), .authorization)
        XCTAssertEqual(TokenSource(parsing: "cookie:id_token"), .cookie("id_token"))
        XCTAssertNil(TokenSource(parsing: "cookie:a;b"))
        XCTAssertNil(TokenSource(parsing: "header:bad name"))
        XCTAssertNil(TokenSource(parsing: "query:token"))
        XCTAssertEqual(ClaimHeader(parsing: "X-A=a/b")?.pointer, "/a~1b", "a claim name is escaped into a pointer")
        XCTAssertEqual(ClaimHeader(parsing: "X-A=/a/b")?.pointer, "/a/b")
        XCTAssertNil(ClaimHeader(parsing: "X A=sub"))
        XCTAssertNil(ClaimHeader(parsing: "X-A="))
        XCTAssertNil(ClaimHeader(parsing: "sub"))
    }
}
