public import Hummingbird
import JWTKernel
import JWTKernelHummingbird
public import JWTKernelRemote
public import JWTKernelServer

/// The forward-auth agent's routes, on one Hummingbird router:
/// - `/auth` and everything under it, any method: the check. 200 with the configured claim headers for a
///   valid token (empty for a claim the token lacks); 401/403 with the RFC 6750 challenge (`BearerError`,
///   the core's table), 503 while the token's issuer has no keys. Gateways send the original request's
///   headers here (Caddy `forward_auth`, nginx `auth_request`, Traefik `forwardAuth`, Envoy `ext_authz`
///   with `path_prefix: /auth`).
/// - `/healthz`: 200 when every issuer's keys are loaded, 503 naming those that are not.
/// - `/metrics`: `metrics()`'s text (the Prometheus exposition format).
public enum ForwardAuthRouter {
    public static func make(
        verifier: MultiIssuerVerifier, refresher: KeyRefresher, configuration: ForwardAuthConfiguration,
        counters: VerificationCounters? = nil, metrics: @escaping @Sendable () -> String = { "" }
    ) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        let check = Check(verifier: verifier, configuration: configuration, counters: counters)
        for method: HTTPRequest.Method in [.get, .head, .post, .put, .patch, .delete, .options] {
            router.on("/auth", method: method) { request, context in try check.answer(request, context) }
            router.on("/auth/**", method: method) { request, context in try check.answer(request, context) }
        }
        router.get("/healthz") { _, _ -> Response in
            let missing = refresher.allStats.map(\.issuer).filter { refresher.store.keys(forIssuer: $0) == nil }
            var body = #"{"status":"\#(missing.isEmpty ? "ok" : "keys_unavailable")","issuers_without_keys":["#
            body += missing.map { JSONValue.string($0).serialized() }.joined(separator: ",") + "]}\n"
            return Response(
                status: missing.isEmpty ? .ok : .serviceUnavailable,
                headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: body)))
        }
        router.get("/metrics") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(byteBuffer: ByteBuffer(string: metrics())))
        }
        return router
    }

    /// One check over HTTP: `ForwardAuthCheck`'s decision as a response.
    struct Check: Sendable {
        let decision: ForwardAuthCheck

        init(verifier: MultiIssuerVerifier, configuration: ForwardAuthConfiguration, counters: VerificationCounters?) {
            decision = ForwardAuthCheck(verifier: verifier, configuration: configuration, counters: counters)
        }

        func answer(_ request: Request, _ context: BasicRequestContext) throws -> Response {
            Response(status: .ok, headers: try decision.claimHeaders(for: request.headers, logger: context.logger))
        }
    }
}
