import HTTPTypes
import JWTKernelExtAuthz
import JWTKernelExtAuthzProto
import JWTKernelForwardAuth
import JWTKernelIntegrationTesting
import XCTest

/// The agent's ext_authz gRPC service (`ExtAuthzService.check`) on the live fixture's keys: what Envoy gets for a
/// valid token, for none, for a bad one and for an issuer without keys, with headers as Envoy sends them (the map,
/// or raw `header_map`). The same decision as `/auth` (ForwardAuthLiveTests).
final class ExtAuthzServiceTests: XCTestCase {
    var fixture: LiveFixture!

    override func setUp() async throws { fixture = try await LiveFixture() }
    override func tearDown() async throws { fixture.stop() }

    func service() -> ExtAuthzService {
        let configuration = ForwardAuthConfiguration(
            claimHeaders: [ClaimHeader(parsing: "X-Jwt-Sub=sub")!, ClaimHeader(parsing: "X-Jwt-Missing=missing")!])
        return ExtAuthzService(
            decision: ForwardAuthCheck(verifier: fixture.verifier, configuration: configuration, counters: nil))
    }

    func check(_ headers: [String: String], raw: Bool = false) async throws -> Envoy_Service_Auth_V3_CheckResponse {
        var request = Envoy_Service_Auth_V3_CheckRequest()
        if raw {
            request.attributes.request.http.headerMap.headers = headers.map { k, v in
                var h = Envoy_Service_Auth_V3_HeaderValue()
                h.key = k
                h.rawValue = Data(v.utf8)
                return h
            }
        } else {
            request.attributes.request.http.headers = headers
        }
        return service().check(request)
    }

    func testValidTokenIsOkWithClaimHeadersSetAndMissingOnesRemoved() async throws {
        for raw in [false, true] {
            let r = try await check(["authorization": "Bearer " + fixture.token(), "x-jwt-sub": "forged"], raw: raw)
            XCTAssertEqual(r.status.code, 0)
            guard case .okResponse(let ok)? = r.httpResponse else { return XCTFail("not ok: \(r)") }
            XCTAssertEqual(ok.headers.map { "\($0.header.key)=\($0.header.value)" }, ["x-jwt-sub=user-1"])
            XCTAssertTrue(
                ok.headers.allSatisfy { $0.appendAction == .overwriteIfExistsOrAdd }, "a client's copy replaced")
            XCTAssertEqual(ok.headersToRemove, ["x-jwt-missing"], "a claim the token lacks: any client copy removed")
        }
    }

    func testRefusalsAreDeniedWithTheChallenge() async throws {
        let cases: [([String: String], Int32, Int32, String?)] = [
            ([:], 401, 16, #"Bearer realm="api""#),
            (["authorization": "Bearer junk"], 401, 16, #"Bearer realm="api", error="invalid_token""#),
            (
                ["authorization": "Bearer " + fixture.token(audience: "other")], 401, 16,
                #"Bearer realm="api", error="invalid_token""#
            ),
            (["authorization": "Bearer " + fixture.token(issuer: LiveFixture.downIssuer)], 503, 14, nil),
        ]
        for (headers, http, grpc, challenge) in cases {
            let r = try await check(headers)
            XCTAssertEqual(r.status.code, grpc, "\(headers)")
            guard case .deniedResponse(let denied)? = r.httpResponse else { return XCTFail("not denied: \(r)") }
            XCTAssertEqual(denied.status.code, http)
            XCTAssertEqual(
                denied.headers.first(where: { $0.header.key == "www-authenticate" })?.header.value, challenge)
            XCTAssertFalse(denied.body.contains("junk"), "no token echoed")
        }
    }
}
