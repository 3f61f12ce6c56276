import HTTPTypes
public import JWTKernelExtAuthzProto
public import JWTKernelForwardAuth
import JWTKernelHummingbird
public import Logging

/// Envoy's ext_authz over gRPC (`envoy.service.auth.v3.Authorization/Check`), answered with the forward-auth agent's
/// own decision (`ForwardAuthCheck`, the one its `/auth` route answers with):
/// - a valid token: `status.code` 0 and `ok_response` with each configured claim header the token has a value for
///   (`OVERWRITE_IF_EXISTS_OR_ADD`, so a client's copy is replaced) and `headers_to_remove` naming the others (a
///   claim the token lacks leaves no forged copy behind). Never both for one name: Envoy's ext_authz applies the
///   removals after the headers it sets;
/// - a refusal: `denied_response` with the HTTP status (401, 403, 503) and the RFC 6750 `WWW-Authenticate`, and the
///   gRPC code Envoy logs: 16 `UNAUTHENTICATED` (401), 7 `PERMISSION_DENIED` (403), 14 `UNAVAILABLE` (503).
/// The request's headers are `attributes.request.http.headers` (names lower-cased by Envoy, repeated fields joined
/// with ","), or `header_map` when Envoy sends raw headers (`encode_raw_headers`).
/// It knows messages only; `ExtAuthzRoute` carries them over gRPC.
public struct ExtAuthzService: Sendable {
    let decision: ForwardAuthCheck
    let logger: Logger

    public init(decision: ForwardAuthCheck, logger: Logger = Logger(label: "jwtk-forward-auth.ext-authz")) {
        self.decision = decision
        self.logger = logger
    }

    public func check(
        _ request: Envoy_Service_Auth_V3_CheckRequest, logger: Logger? = nil
    )
        -> Envoy_Service_Auth_V3_CheckResponse
    {
        answer(Self.headers(of: request), logger: logger ?? self.logger)
    }

    /// The decision on `headers` as Envoy's CheckResponse.
    func answer(_ headers: HTTPFields, logger: Logger) -> Envoy_Service_Auth_V3_CheckResponse {
        var response = Envoy_Service_Auth_V3_CheckResponse()
        do {
            let claims = try decision.claimHeaders(for: headers, logger: logger)
            var ok = Envoy_Service_Auth_V3_OkHttpResponse()
            ok.headers = claims.filter { !$0.value.isEmpty }.map { Self.option($0.name.canonicalName, $0.value) }
            ok.headersToRemove = claims.filter { $0.value.isEmpty }.map { $0.name.canonicalName }
            response.status = Envoy_Service_Auth_V3_RpcStatus()
            response.okResponse = ok
        } catch {
            var denied = Envoy_Service_Auth_V3_DeniedHttpResponse()
            denied.status.code = Int32(error.status.code)
            if let challenge = error.challenge { denied.headers = [Self.option("www-authenticate", challenge)] }
            response.status.code =
                switch error.status.code {
                case 401: 16  // UNAUTHENTICATED
                case 503: 14  // UNAVAILABLE
                default: 7  // PERMISSION_DENIED
                }
            response.status.message = error.message
            response.deniedResponse = denied
        }
        return response
    }

    static func option(_ name: String, _ value: String) -> Envoy_Service_Auth_V3_HeaderValueOption {
        var option = Envoy_Service_Auth_V3_HeaderValueOption()
        option.header.key = name
        option.header.value = value
        option.appendAction = .overwriteIfExistsOrAdd
        return option
    }

    /// The request headers Envoy sent; a name HTTP would not accept is left out (no source reads it).
    static func headers(of request: Envoy_Service_Auth_V3_CheckRequest) -> HTTPFields {
        let http = request.attributes.request.http
        var fields = HTTPFields()
        if http.hasHeaderMap {
            for header in http.headerMap.headers {
                guard let name = HTTPField.Name(header.key) else { continue }
                let value = header.rawValue.isEmpty ? header.value : String(decoding: header.rawValue, as: UTF8.self)
                fields.append(HTTPField(name: name, value: value))
            }
        } else {
            for (key, value) in http.headers.sorted(by: { $0.key < $1.key }) {
                guard let name = HTTPField.Name(key) else { continue }
                fields.append(HTTPField(name: name, value: value))
            }
        }
        return fields
    }
}
