import ArgumentParser
import Foundation
import Hummingbird
import JWTKernel
import JWTKernelExtAuthz
import JWTKernelForwardAuth
import JWTKernelRemote
import JWTKernelServer
import Logging
import Prometheus

/// `jwtk-forward-auth`: the HTTP service a gateway asks before each request (Caddy `forward_auth`, nginx
/// `auth_request`, Traefik `forwardAuth`, Envoy `ext_authz`, ingress-nginx `auth-url`). The issuers come
/// from the same file as `jwtk verify --issuer-config`; keys are fetched and refreshed by the core's
/// refresher, run as one of the application's services (stopped on SIGTERM/SIGINT with the server).
@main
struct ForwardAuthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jwtk-forward-auth",
        abstract:
            "Answer gateways' forward-auth requests: 200 with claim headers for a valid JWT, 401/403 with the RFC 6750 challenge.",
        discussion: """
            Routes: /auth (and /auth/...) any method: the check; /healthz: 200 once every issuer's keys are loaded, \
            else 503; /metrics: Prometheus text (key fetches, keys, verifications by issuer and result). \
            With --grpc-listen, also Envoy's ext_authz gRPC service (envoy.service.auth.v3.Authorization/Check) \
            on plaintext HTTP/2, answering as /auth does.
            """)

    @Option(
        name: .customLong("issuer-config"),
        help: ArgumentHelp(
            "JSON file listing issuers (required unless --print-gateway-config), as for jwtk verify --issuer-config: {\"issuers\":[{\"issuer\":..,\"jwks_url\":.. or \"discovery\":true,\"audiences\":[..]} or {\"provider\":..,\"audiences\":[..]}]}.",
            valueName: "FILE"))
    var issuerConfig: String?

    @Option(help: ArgumentHelp("Address to listen on (port 0: any free port, printed).", valueName: "HOST:PORT"))
    var listen = "127.0.0.1:9180"

    @Option(
        name: .customLong("grpc-listen"),
        help: ArgumentHelp(
            "Also serve Envoy's ext_authz gRPC service (envoy.service.auth.v3.Authorization/Check, plaintext HTTP/2) on this address (port 0: any free port, printed). Off by default.",
            valueName: "HOST:PORT"))
    var grpcListen: String?

    @Option(
        name: .customLong("token-from"),
        help: ArgumentHelp(
            "Where the token is, in order, the first found is checked: authorization (the default), header:NAME, cookie:NAME. Repeatable.",
            valueName: "SOURCE"))
    var tokenFrom: [String] = []

    @Option(
        name: .customLong("claim-header"),
        help: ArgumentHelp(
            "Answer a claim as a response header on 200: X-Jwt-Sub=sub, X-Roles=/https:~1~1example.com~1roles (a JSON Pointer). Repeatable.",
            valueName: "HEADER=CLAIM"))
    var claimHeader: [String] = []

    @Option(help: ArgumentHelp("The challenge's realm.", valueName: "REALM"))
    var realm = "api"

    @Option(help: ArgumentHelp("Seconds of clock skew allowed for exp, nbf and iat.", valueName: "SECONDS"))
    var leeway: Int = 60

    @Option(name: .customLong("fetch-timeout"), help: ArgumentHelp("Seconds for each key fetch.", valueName: "SECONDS"))
    var fetchTimeout: Double = 10

    @Option(
        name: .customLong("unknown-kid-cooldown"),
        help: ArgumentHelp(
            "Seconds between key fetches caused by tokens with an unknown kid (a rotation is seen at once; a flood of random kids costs one fetch per period).",
            valueName: "SECONDS"))
    var unknownKidCooldown: Double = 30

    @Option(name: .customLong("log-level"), help: ArgumentHelp("trace, debug, info, notice, warning, error, critical."))
    var logLevel = "info"

    @Option(
        name: .customLong("print-gateway-config"),
        help: ArgumentHelp(
            "Print the configuration a gateway needs for these --claim-header and --token-from options and this --listen address, then exit: caddy, nginx, traefik, envoy (ext_authz over HTTP) or envoy-grpc (over gRPC, to the --grpc-listen address). Every claim header must be listed at the gateway.",
            valueName: "GATEWAY"))
    var printGatewayConfig: String?

    func validate() throws {
        guard Self.hostAndPort(listen) != nil else { throw ValidationError("--listen: expected HOST:PORT") }
        if let grpcListen, Self.hostAndPort(grpcListen) == nil {
            throw ValidationError("--grpc-listen: expected HOST:PORT")
        }
        if let gateway = printGatewayConfig, GatewayConfiguration(rawValue: gateway) == nil {
            let names = GatewayConfiguration.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationError("--print-gateway-config \(gateway): expected one of \(names)")
        }
        if printGatewayConfig == GatewayConfiguration.envoyGRPC.rawValue, grpcListen == nil {
            throw ValidationError("--print-gateway-config envoy-grpc: needs the --grpc-listen address")
        }
        guard issuerConfig != nil || printGatewayConfig != nil else {
            throw ValidationError("Missing expected argument '--issuer-config <FILE>'")
        }
        for text in tokenFrom where TokenSource(parsing: text) == nil {
            throw ValidationError("--token-from \(text): expected authorization, header:NAME or cookie:NAME")
        }
        for text in claimHeader where ClaimHeader(parsing: text) == nil {
            throw ValidationError(
                "--claim-header \(text): expected HEADER=CLAIM (a header name, a claim or a JSON Pointer)")
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level \(logLevel): unknown level")
        }
        guard (0...86400).contains(leeway) else { throw ValidationError("--leeway must be between 0 and 86400") }
        guard unknownKidCooldown >= 0.5, unknownKidCooldown <= 86400 else {
            throw ValidationError("--unknown-kid-cooldown must be between 0.5 and 86400")
        }
        guard fetchTimeout > 0, fetchTimeout <= 600 else {
            throw ValidationError("--fetch-timeout must be between 0 and 600")
        }
    }

    func run() async throws {
        let configuration = ForwardAuthConfiguration(
            tokenSources: tokenFrom.isEmpty ? [.authorization] : tokenFrom.compactMap(TokenSource.init(parsing:)),
            claimHeaders: claimHeader.compactMap(ClaimHeader.init(parsing:)), realm: realm)
        if let gateway = printGatewayConfig.flatMap(GatewayConfiguration.init(rawValue:)) {
            let address = gateway == .envoyGRPC ? grpcListen ?? listen : listen
            let text = gateway.text(for: configuration, agent: GatewayConfiguration.dialable(address))
            FileHandle.standardOutput.write(Data(text.utf8))
            return
        }
        guard let issuerConfig else { return }  // validate() requires it when nothing is printed
        var logger = Logger(label: "jwtk-forward-auth")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info

        guard let data = FileManager.default.contents(atPath: issuerConfig) else {
            throw ValidationError("\(issuerConfig): cannot read the issuer configuration")
        }
        var policy = RefreshPolicy()
        policy.unknownKidCooldown = unknownKidCooldown
        let refresher = KeyRefresher(store: KeyStore(), policy: policy)
        var fetch = HTTPKeySourceConfiguration()
        fetch.totalTimeout = fetchTimeout
        var base = ClaimsPolicy()
        base.leeway = Int64(leeway)
        let routes: [IssuerConfiguration]
        do {
            routes = try refresher.register(
                IssuerConfigurationFile(parsing: Array(data)), base: base, configuration: fetch)
        } catch {
            throw ValidationError("\(issuerConfig): \(error.description)")
        }
        let verifier = MultiIssuerVerifier(store: refresher.store, issuers: routes)
        let counters = VerificationCounters(for: verifier)
        let registry = PrometheusCollectorRegistry()
        let router = ForwardAuthRouter.make(
            verifier: verifier, refresher: refresher, configuration: configuration, counters: counters,
            metrics: { registry.emitToString() })

        let decision = ForwardAuthCheck(verifier: verifier, configuration: configuration, counters: counters)
        let (host, port) = Self.hostAndPort(listen)!
        var app = Application(
            router: router, configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in
                // One line on stdout, for scripts that asked for port 0.
                let line = "jwtk-forward-auth: listening on \(channel.localAddress?.description ?? listen)\n"
                FileHandle.standardOutput.write(Data(line.utf8))
            },
            logger: logger)
        if let grpcListen, let (grpcHost, grpcPort) = Self.hostAndPort(grpcListen) {
            // A second listener in the same service group: it starts and stops with the HTTP one.
            app.addServices(
                ExtAuthzServer.application(
                    service: ExtAuthzService(decision: decision, logger: logger), host: grpcHost, port: grpcPort,
                    logger: logger,
                    onServerRunning: { channel in
                        let line =
                            "jwtk-forward-auth: ext_authz gRPC listening on \(channel.localAddress?.description ?? grpcListen)\n"
                        FileHandle.standardOutput.write(Data(line.utf8))
                    }))
        }
        app.addServices(
            KeyRefresherService(
                refresher: refresher, logger: logger, metricsFactory: PrometheusMetricsFactory(registry: registry),
                metricsInterval: .seconds(1), verificationCounters: counters))
        try await app.runService()
    }

    static func hostAndPort(_ text: String) -> (String, Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port), colon > text.startIndex
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host, port)
    }
}
