import Foundation
import JWTKernelExtAuthz
import JWTKernelExtAuthzProto
import SwiftProtobuf
import XCTest

/// The generated ext_authz messages (Protos/envoy_ext_authz.proto) against `protoc`'s own encoding of the same
/// messages: an encoder other than swift-protobuf's. The fixtures are `protoc --encode` of the text format in each
/// comment (Debian's protobuf-compiler 3.21, `--proto_path=Protos envoy_ext_authz.proto`), in base64.
final class ExtAuthzProtoTests: XCTestCase {
    /// `attributes { request { http { id: "r1" method: "GET" path: "/api/x?y=1" host: "example" scheme: "http"
    /// protocol: "HTTP/1.1" headers { key: "authorization" value: "Bearer a.b.c" }
    /// headers { key: "x-jwt-sub" value: "forged" } } } context_extensions { key: "route" value: "api" } }`
    static let checkRequest =
        "CnQiZBJiCgJyMRIDR0VUGh0KDWF1dGhvcml6YXRpb24SDEJlYXJlciBhLmIuYxoTCgl4LWp3dC1zdWISBmZvcmdlZCIKL2FwaS94P3k9MSoH"
        + "ZXhhbXBsZTIEaHR0cFIISFRUUC8xLjFSDAoFcm91dGUSA2FwaQ=="

    /// `status { code: 16 message: "invalid_token" } denied_response { status { code: 401 } headers { header {
    /// key: "www-authenticate" value: "Bearer realm=\"api\", error=\"invalid_token\"" }
    /// append_action: OVERWRITE_IF_EXISTS_OR_ADD } }`
    static let denied =
        "ChEIEBINaW52YWxpZF90b2tlbhJICgMIkQMSQQo9ChB3d3ctYXV0aGVudGljYXRlEilCZWFyZXIgcmVhbG09ImFwaSIsIGVycm9yPSJpbnZh"
        + "bGlkX3Rva2VuIhgC"

    /// `status { } ok_response { headers { header { key: "x-jwt-sub" value: "user-1" }
    /// append_action: OVERWRITE_IF_EXISTS_OR_ADD } headers_to_remove: "x-jwt-sub" headers_to_remove: "x-jwt-email" }`
    static let ok = "CgAaMRIXChMKCXgtand0LXN1YhIGdXNlci0xGAIqCXgtand0LXN1YioLeC1qd3QtZW1haWw="

    func testCheckRequestDecodesProtocsEncoding() throws {
        let request = try Envoy_Service_Auth_V3_CheckRequest(
            serializedBytes: try XCTUnwrap(Data(base64Encoded: Self.checkRequest)))
        let http = request.attributes.request.http
        XCTAssertEqual(http.id, "r1")
        XCTAssertEqual(http.method, "GET")
        XCTAssertEqual(http.path, "/api/x?y=1")
        XCTAssertEqual(http.host, "example")
        XCTAssertEqual(http.scheme, "http")
        XCTAssertEqual(http.protocol, "HTTP/1.1")
        XCTAssertEqual(http.headers, ["authorization": "Bearer a.b.c", "x-jwt-sub": "forged"])
        XCTAssertEqual(request.attributes.contextExtensions, ["route": "api"])
    }

    func testDeniedResponseEncodesAsProtocDoes() throws {
        var response = Envoy_Service_Auth_V3_CheckResponse()
        response.status.code = 16
        response.status.message = "invalid_token"
        var denied = Envoy_Service_Auth_V3_DeniedHttpResponse()
        denied.status.code = 401
        var challenge = Envoy_Service_Auth_V3_HeaderValueOption()
        challenge.header.key = "www-authenticate"
        challenge.header.value = #"Bearer realm="api", error="invalid_token""#
        challenge.appendAction = .overwriteIfExistsOrAdd
        denied.headers = [challenge]
        response.deniedResponse = denied
        let bytes: Data = try response.serializedBytes()
        XCTAssertEqual(bytes.base64EncodedString(), Self.denied)
    }

    func testOkResponseEncodesAsProtocDoes() throws {
        var response = Envoy_Service_Auth_V3_CheckResponse()
        response.status = Envoy_Service_Auth_V3_RpcStatus()  // code 0: OK, sent as an empty message
        var ok = Envoy_Service_Auth_V3_OkHttpResponse()
        var sub = Envoy_Service_Auth_V3_HeaderValueOption()
        sub.header.key = "x-jwt-sub"
        sub.header.value = "user-1"
        sub.appendAction = .overwriteIfExistsOrAdd
        ok.headers = [sub]
        ok.headersToRemove = ["x-jwt-sub", "x-jwt-email"]
        response.okResponse = ok
        let bytes: Data = try response.serializedBytes()
        XCTAssertEqual(bytes.base64EncodedString(), Self.ok)
        // And back: the oneof arrives as the OK case, nothing lost.
        let back = try Envoy_Service_Auth_V3_CheckResponse(serializedBytes: bytes)
        XCTAssertEqual(back, response)
        guard case .okResponse(let got)? = back.httpResponse else { return XCTFail("not an ok_response") }
        XCTAssertEqual(got.headersToRemove, ["x-jwt-sub", "x-jwt-email"])
    }

    /// The method Envoy calls, `/` package `.` service `/` method of the .proto: /envoy.service.auth.v3.Authorization/Check.
    func testMethodPath() throws {
        let proto = try String(
            contentsOf: URL(fileURLWithPath: #filePath)
                .deletingLastPathComponent().appendingPathComponent("../../Protos/envoy_ext_authz.proto").standardized,
            encoding: .utf8)
        XCTAssertTrue(proto.contains("package envoy.service.auth.v3;"))
        XCTAssertTrue(proto.contains("service Authorization {\n  rpc Check(CheckRequest) returns (CheckResponse) {}"))
        XCTAssertEqual(ExtAuthzRoute.path, "/envoy.service.auth.v3.Authorization/Check")
    }
}
