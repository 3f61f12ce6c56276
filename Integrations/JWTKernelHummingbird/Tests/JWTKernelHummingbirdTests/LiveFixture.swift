import Hummingbird
import HummingbirdAuth
import HummingbirdTesting
import JWTKernel
import JWTKernelHummingbird
import JWTKernelIntegrationTesting
import JWTKernelRemote
import XCTest

/// A loopback JWKS server, a started key refresher fetching from it, and the verifier the applications
/// under test use: `issuer` (HS256 keys the test rotates) and `https://down.test`, whose key URL
/// answers 500, so its tokens get 503.
final class LiveFixture: @unchecked Sendable {
    let server: LoopbackServer
    let issuer = TestIssuer()
    let refresher: KeyRefresher
    let verifier: MultiIssuerVerifier
    static let downIssuer = "https://down.test"

    init() async throws {
        server = try LoopbackServer()
        issuer.serveKeys(["k1"], on: server)
        server.serve("/down", json: "{}", status: 500)
        var policy = RefreshPolicy()
        // Short enough for a rotation to be picked up within the test, as the core's refresher tests do.
        policy.unknownKidCooldown = 0.5
        policy.maxIdleWait = 0.2
        refresher = KeyRefresher(store: KeyStore(), policy: policy)
        refresher.add(issuer: issuer.issuer, source: try HTTPKeySource(url: server.url(issuer.path)))
        refresher.add(issuer: Self.downIssuer, source: try HTTPKeySource(url: server.url("/down")))
        verifier = MultiIssuerVerifier(
            store: refresher.store,
            issuers: [
                IssuerConfiguration(issuer: issuer.issuer, policy: ClaimsPolicy(audiences: [issuer.audience])),
                IssuerConfiguration(issuer: Self.downIssuer, policy: ClaimsPolicy(audiences: [issuer.audience])),
            ])
        refresher.start()
        let loaded = await eventually(5) { self.refresher.store.keys(forIssuer: self.issuer.issuer) != nil }
        XCTAssertTrue(loaded, "the refresher's first fetch")
    }

    func stop() {
        refresher.stop()
        server.stop()
    }

    func token(kid: String = "k1", expiresIn: Int = 600, audience: String? = nil, issuer: String? = nil) -> String {
        self.issuer.token(on: server, kid: kid, expiresIn: expiresIn, audience: audience, issuer: issuer)
    }

    /// An application on a free loopback port (`.live` testing runs it for real).
    static func application<Context: RequestContext>(_ router: Router<Context>) -> some ApplicationProtocol
    where Context.Source == ApplicationRequestContextSource {
        Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }
}

/// One request's status, challenge and body.
struct Answer: Equatable, CustomStringConvertible {
    let status: Int
    let challenge: String?
    let body: String
    var description: String { "\(status) \(challenge ?? "-") \(body)" }
}

extension TestClientProtocol {
    func get(_ uri: String, authorization: String? = nil) async throws -> Answer {
        var headers = HTTPFields()
        if let authorization { headers[.authorization] = authorization }
        return try await execute(uri: uri, method: .get, headers: headers) { response in
            Answer(
                status: response.status.code, challenge: response.headers[.wwwAuthenticate],
                body: String(buffer: response.body))
        }
    }

    func get(_ uri: String, bearer token: String) async throws -> Answer {
        try await get(uri, authorization: "Bearer " + token)
    }
}
