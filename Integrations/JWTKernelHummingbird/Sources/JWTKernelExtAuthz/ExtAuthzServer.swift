public import Hummingbird
import HummingbirdHTTP2
public import Logging
public import NIOCore

/// The agent's ext_authz gRPC listener (`jwtk-forward-auth --grpc-listen`): a Hummingbird application of its own on
/// plaintext HTTP/2 (h2c with prior knowledge, what Envoy's `envoy_grpc` speaks to a cluster with
/// `http2_protocol_options`), whose router has only `ExtAuthzRoute`. Run as one more service of the agent's
/// service group, it stops with the HTTP listener on SIGTERM.
public enum ExtAuthzServer {
    public static func application(
        service: ExtAuthzService, host: String, port: Int, logger: Logger,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router(context: BasicRequestContext.self)
        ExtAuthzRoute.add(to: router, service: service)
        return Application(
            router: router, server: .plaintextHTTP2(),
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: onServerRunning, logger: logger)
    }
}
