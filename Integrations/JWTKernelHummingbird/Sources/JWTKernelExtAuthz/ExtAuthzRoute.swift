public import Hummingbird
import JWTKernelExtAuthzProto
import Logging
import NIOCore
import SwiftProtobuf

/// Envoy's ext_authz gRPC call, `POST /envoy.service.auth.v3.Authorization/Check`, as a route of a Hummingbird
/// router served over HTTP/2 (`ExtAuthzServer`): the one unary method, so no gRPC framework is needed, only the
/// gRPC HTTP/2 protocol's framing (`GRPCMessageFrame`) and trailers (`GRPCStatus`) around swift-protobuf's
/// generated messages. The answer is `ExtAuthzService`'s, that is `ForwardAuthCheck`'s, the `/auth` route's.
///
/// A call ends with `grpc-status` 0 and one CheckResponse, whatever the verdict (a refusal is a CheckResponse
/// with `denied_response`). A request that is not one CheckRequest ends with a gRPC error status and no message,
/// which Envoy counts as the authorization server failing: with `failure_mode_allow: false`, the request is
/// refused with `status_on_error`.
public enum ExtAuthzRoute {
    /// The method's path: `/` package `.` service `/` method, as in the .proto.
    public static let path = "/envoy.service.auth.v3.Authorization/Check"
    /// The largest CheckRequest read (1 MiB): a request's headers are 60 KiB at Envoy's default
    /// max_request_headers_kb, and the agent's configurations ask for no body (no with_request_body).
    public static let maxMessageBytes = 1 << 20

    /// Adds the method to `router`, and an UNIMPLEMENTED answer for any other POST (gRPC's word for an unknown
    /// method; Envoy's client would read a 404 as the same).
    public static func add<Context: RequestContext>(to router: Router<Context>, service: ExtAuthzService) {
        router.post(RouterPath(path)) { request, context in
            await call(request, logger: context.logger, service: service)
        }
        router.post("**") { _, _ in
            reply(nil, .unimplemented("unknown method; this server has \(path)"))
        }
    }

    /// One call: the request's message, decoded, answered.
    static func call(_ request: Request, logger: Logger, service: ExtAuthzService) async -> Response {
        guard let type = request.headers[.contentType],
            type == "application/grpc" || type.hasPrefix("application/grpc+proto")
                || type.hasPrefix("application/grpc;")
        else {
            // Not gRPC: the gRPC HTTP/2 protocol's answer is HTTP 415.
            return Response(status: .unsupportedMediaType)
        }
        let body: ByteBuffer
        do {
            // The largest frame (prefix and message): a longer body is refused without reading it all.
            body = try await request.body.collect(upTo: maxMessageBytes + 5)
        } catch {
            return reply(nil, .resourceExhausted("request larger than \(maxMessageBytes) bytes"))
        }
        do throws(GRPCStatus) {
            let bytes = try GRPCMessageFrame.message(in: body, limit: maxMessageBytes)
            let checkRequest: Envoy_Service_Auth_V3_CheckRequest
            do {
                checkRequest = try Envoy_Service_Auth_V3_CheckRequest(serializedBytes: Array(buffer: bytes))
            } catch {
                throw .invalidArgument("not a CheckRequest: \(error)")
            }
            let response = service.check(checkRequest, logger: logger)
            do {
                let encoded: [UInt8] = try response.serializedBytes()
                return reply(GRPCMessageFrame.framed(encoded), .ok)
            } catch {
                throw GRPCStatus(13, "CheckResponse not encoded: \(error)")  // INTERNAL
            }
        } catch {
            logger.debug(
                "ext_authz gRPC call refused", metadata: ["grpc_status": "\(error.code)", "reason": "\(error.message)"])
            return reply(nil, error)
        }
    }

    /// HTTP 200, `content-type: application/grpc`, the message if any, then the status as trailers.
    static func reply(_ message: ByteBuffer?, _ status: GRPCStatus) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/grpc"],
            body: ResponseBody { writer in
                if let message { try await writer.write(message) }
                try await writer.finish(status.trailers)
            })
    }
}
