import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JWTKernelExtAuthz
import JWTKernelExtAuthzProto
import JWTKernelForwardAuth
import SwiftProtobuf
import XCTest

/// The gRPC carriage of the ext_authz call (`ExtAuthzRoute`) through Hummingbird's router: framing in and out, the
/// `grpc-status` trailer, and every malformed call ending in a gRPC error status rather than a guess. The answers
/// themselves are ExtAuthzServiceTests'; Envoy itself calls the route over HTTP/2 in IntegrationTests/forward-auth.
final class ExtAuthzRouteTests: XCTestCase {
    var fixture: LiveFixture!

    override func setUp() async throws { fixture = try await LiveFixture() }
    override func tearDown() async throws { fixture.stop() }

    func router() -> Router<BasicRequestContext> {
        let configuration = ForwardAuthConfiguration(claimHeaders: [ClaimHeader(parsing: "X-Jwt-Sub=sub")!])
        let router = Router(context: BasicRequestContext.self)
        ExtAuthzRoute.add(
            to: router,
            service: ExtAuthzService(
                decision: ForwardAuthCheck(verifier: fixture.verifier, configuration: configuration, counters: nil)))
        return router
    }

    static func request(authorization: String?) throws -> [UInt8] {
        var request = Envoy_Service_Auth_V3_CheckRequest()
        if let authorization { request.attributes.request.http.headers = ["authorization": authorization] }
        return try request.serializedBytes()
    }

    /// (HTTP status, grpc-status trailer, content-type, the decoded CheckResponse if a message came).
    func call(
        _ body: ByteBuffer, path: String = ExtAuthzRoute.path, contentType: String = "application/grpc"
    ) async throws -> (Int, String?, String?, Envoy_Service_Auth_V3_CheckResponse?) {
        let app = Application(router: router())
        return try await app.test(.router) { client in
            try await client.execute(uri: path, method: .post, headers: [.contentType: contentType], body: body) {
                r in
                var message: Envoy_Service_Auth_V3_CheckResponse?
                if r.body.readableBytes > 0 {
                    let bytes = try GRPCMessageFrame.message(in: r.body, limit: 1 << 20)
                    message = try Envoy_Service_Auth_V3_CheckResponse(serializedBytes: Array(buffer: bytes))
                }
                return (
                    r.status.code, r.trailerHeaders?[HTTPField.Name("grpc-status")!], r.headers[.contentType],
                    message
                )
            }
        }
    }

    func testCheckAnsweredInOneFrameWithStatusZero() async throws {
        let valid = try await call(
            GRPCMessageFrame.framed(try Self.request(authorization: "Bearer " + fixture.token())))
        XCTAssertEqual(valid.0, 200)
        XCTAssertEqual(valid.1, "0")
        XCTAssertEqual(valid.2, "application/grpc")
        guard case .okResponse(let ok)? = valid.3?.httpResponse else { return XCTFail("not ok: \(valid)") }
        XCTAssertEqual(ok.headers.map(\.header.value), ["user-1"])

        // A refusal is still a successful call: grpc-status 0, the denial inside the message.
        let none = try await call(GRPCMessageFrame.framed(try Self.request(authorization: nil)))
        XCTAssertEqual(none.1, "0")
        guard case .deniedResponse(let denied)? = none.3?.httpResponse else { return XCTFail("not denied") }
        XCTAssertEqual(denied.status.code, 401)
        XCTAssertEqual(none.3?.status.code, 16)
    }

    func testMalformedCallsEndInAnErrorStatus() async throws {
        let message = try Self.request(authorization: "Bearer " + fixture.token())
        var compressed = GRPCMessageFrame.framed(message)
        compressed.setInteger(UInt8(1), at: 0)
        var badFlag = GRPCMessageFrame.framed(message)
        badFlag.setInteger(UInt8(7), at: 0)
        var two = GRPCMessageFrame.framed(message)
        two.writeImmutableBuffer(GRPCMessageFrame.framed(message))
        var short = GRPCMessageFrame.framed(message)
        short.moveWriterIndex(to: short.writerIndex - 1)
        var huge = ByteBuffer()
        huge.writeInteger(UInt8(0))
        huge.writeInteger(UInt32(ExtAuthzRoute.maxMessageBytes + 1))
        let cases: [(String, ByteBuffer, String)] = [
            ("empty body", ByteBuffer(), "3"),
            ("four bytes", ByteBuffer(bytes: [0, 0, 0, 0]), "3"),
            ("compressed", compressed, "12"),
            ("bad flag", badFlag, "3"),
            ("two messages", two, "3"),
            ("shorter than its prefix", short, "3"),
            ("a prefix over the limit", huge, "8"),
            ("not a CheckRequest", GRPCMessageFrame.framed([0xFF, 0xFF, 0xFF]), "3"),
            ("a body over the limit", ByteBuffer(repeating: 0, count: ExtAuthzRoute.maxMessageBytes + 64), "8"),
        ]
        for (name, body, status) in cases {
            let r = try await call(body)
            XCTAssertEqual(r.0, 200, name)
            XCTAssertEqual(r.1, status, name)
            XCTAssertNil(r.3, "\(name): no message with an error status")
        }
        let other = try await call(GRPCMessageFrame.framed(message), path: "/envoy.service.auth.v2.Authorization/Check")
        XCTAssertEqual(other.1, "12", "an unknown method is UNIMPLEMENTED")
        let json = try await call(GRPCMessageFrame.framed(message), contentType: "application/json")
        XCTAssertEqual(json.0, 415, "not gRPC")
    }

    func testGRPCMessageIsPercentEncoded() {
        XCTAssertEqual(GRPCStatus(3, "a%b\né").trailers[HTTPField.Name("grpc-message")!], "a%25b%0A%C3%A9")
    }
}
