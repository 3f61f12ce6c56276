/// The configuration a gateway needs in front of the agent, for the agent's own claim headers and token
/// sources (`jwtk-forward-auth --print-gateway-config GATEWAY`). Every claim header must be named at the
/// gateway: a header the gateway neither copies from the agent's answer nor strips reaches the upstream as
/// the client sent it. The README shows these texts for its example command, and the forward-auth test runs
/// the real gateways on the README's texts and compares them with these, so neither can drift.
///
/// The upstream (`127.0.0.1:8080`, nginx's `backend`) and the gateway's own listening address are
/// placeholders to edit; the agent's address is the one it listens on.
public enum GatewayConfiguration: String, CaseIterable, Sendable {
    case caddy, nginx, traefik, envoy
    /// Envoy's ext_authz over gRPC: `agent` is the agent's `--grpc-listen` address.
    case envoyGRPC = "envoy-grpc"

    public func text(for configuration: ForwardAuthConfiguration, agent: String) -> String {
        let names = configuration.claimHeaders.map(\.header.rawName)
        switch self {
        case .caddy: return Self.caddy(names, agent)
        case .nginx: return Self.nginx(names, agent)
        case .traefik: return Self.traefik(names, agent)
        case .envoy: return Self.envoy(configuration, agent)
        case .envoyGRPC: return Self.envoyGRPC(agent)
        }
    }

    /// The address the gateway dials: a wildcard listening address stands for the local host.
    public static func dialable(_ listen: String) -> String {
        for wildcard in ["0.0.0.0:", "[::]:", ":"] where listen.hasPrefix(wildcard) {
            return "127.0.0.1:" + listen.dropFirst(wildcard.count)
        }
        return listen
    }

    // Caddy 2.6 copies only what the agent answers, so client copies are stripped first (in `route`, which
    // keeps this order; Caddy's default order runs request_header after forward_auth). Go keeps header
    // names with "_" as they are, so the look-alike spelling is stripped too.
    private static func caddy(_ names: [String], _ agent: String) -> String {
        let strips = names.map { "        request_header -\($0)\n        request_header -\($0.replacingHyphens())\n" }
        let copy = names.isEmpty ? "" : "            copy_headers \(names.joined(separator: " "))\n"
        return """
            example.com {
                route {
            \(strips.joined())        forward_auth \(agent) {
                        uri /auth
            \(copy)        }
                    reverse_proxy 127.0.0.1:8080
                }
            }

            """
    }

    // proxy_set_header replaces the client's copy (any spelling of the name; nginx ignores names with "_"
    // by default), and an empty value drops the header.
    private static func nginx(_ names: [String], _ agent: String) -> String {
        let variable = { (name: String) in "$auth_" + name.lowercased().replacingHyphens() }
        let sets = names.map {
            "    auth_request_set \(variable($0)) $upstream_http_\($0.lowercased().replacingHyphens());\n"
        }
        let passes = names.map { "    proxy_set_header \($0) \(variable($0));\n" }
        return """
            location / {
                auth_request /_auth;
            \(sets.joined())\(passes.joined())    proxy_pass http://backend;
            }
            location = /_auth {
                internal;
                proxy_pass http://\(agent)/auth;
                proxy_pass_request_body off;
                proxy_set_header Content-Length "";
            }

            """
    }

    // Two files: aliasHeadersStrategy is static configuration (an entry point's), the middleware dynamic. No
    // version check: a gateway calls nowhere it was not configured to.
    // authResponseHeaders replaces client copies of the names it lists; aliasHeadersStrategy: delete drops
    // X_Jwt_Sub and X.Jwt.Sub, which CGI, WSGI and PHP upstreams read as X-Jwt-Sub.
    private static func traefik(_ names: [String], _ agent: String) -> String {
        let copied =
            names.isEmpty ? "" : "        authResponseHeaders:\n" + names.map { "          - \($0)\n" }.joined()
        return """
            # traefik.yml (static configuration)
            global:
              checkNewVersion: false
              sendAnonymousUsage: false
            entryPoints:
              web:
                address: ":8000"
                http:
                  aliasHeadersStrategy: delete
            providers:
              file:
                filename: /etc/traefik/dynamic.yml

            # /etc/traefik/dynamic.yml
            http:
              middlewares:
                jwtk:
                  forwardAuth:
                    address: http://\(agent)/auth
                    trustForwardHeader: false
                    maxResponseBodySize: 65536
            \(copied)  routers:
                api:
                  rule: PathPrefix(`/`)
                  entryPoints: [web]
                  middlewares: [jwtk]
                  service: api
              services:
                api:
                  loadBalancer:
                    servers:
                      - url: http://127.0.0.1:8080

            """
    }

    // Envoy lower-cases header names, and allowed_upstream_headers' `exact` is case-sensitive: the patterns
    // are lower-case. The agent's answer replaces client copies of the headers listed; headers with "_"
    // are dropped at the listener. path_prefix keeps the check on /auth: without it, GET /metrics would be
    // answered by the agent's metrics. Without status_on_error, the agent's 503 (or the agent down) is a
    // 403. Authorization is always sent to the agent; other token sources are listed.
    private static func envoy(_ configuration: ForwardAuthConfiguration, _ agent: String) -> String {
        let upstream = configuration.claimHeaders.map { "{exact: \($0.header.canonicalName)}" }
        var sent: [String] = []
        for source in configuration.tokenSources {
            let name: String? =
                switch source {
                case .authorization: nil
                case .header(let name): name.canonicalName
                case .cookie: "cookie"
                }
            if let name, !sent.contains(name) { sent.append(name) }
        }
        let allowed =
            sent.isEmpty
            ? ""
            : "              allowed_headers:\n                patterns: [\(sent.map { "{exact: \($0)}" }.joined(separator: ", "))]\n"
        // Envoy refuses an empty pattern list: without claim headers, no authorization_response.
        let response =
            upstream.isEmpty
            ? ""
            : """
                            authorization_response:
                              allowed_upstream_headers:
                                patterns: [\(upstream.joined(separator: ", "))]

            """
        let (host, port) = hostAndPort(agent)
        return envoyBootstrap(
            extAuthz: """
                              status_on_error: {code: 503}
                \(allowed)              http_service:
                                server_uri: {uri: "http://\(agent)", cluster: jwtk_forward_auth, timeout: 2s}
                                path_prefix: /auth
                \(response)
                """,
            agentCluster: """
                  - name: jwtk_forward_auth
                    type: STRICT_DNS
                    load_assignment:
                      cluster_name: jwtk_forward_auth
                      endpoints:
                      - lb_endpoints:
                        - endpoint: {address: {socket_address: {address: \(host), port_value: \(port)}}}

                """)
    }

    // gRPC mode sends every request header to the agent (no allowed_headers needed for the token sources) and
    // applies the agent's OkHttpResponse as it is: each claim header the token has a value for replaces the
    // client's copies (OVERWRITE_IF_EXISTS_OR_ADD), the others are removed (headers_to_remove), so the claim
    // headers need not be listed and an absent claim reaches the upstream absent, not empty. There is no path to
    // keep on /auth: the call is the one gRPC method. The cluster speaks HTTP/2 with prior knowledge (h2c), as the
    // agent's --grpc-listen does. failure_mode_allow: false (the default, written out) and status_on_error: the
    // agent down, or a gRPC error, is a 503 as in HTTP mode (Envoy's own default would be a 403).
    private static func envoyGRPC(_ agent: String) -> String {
        let (host, port) = hostAndPort(agent)
        return envoyBootstrap(
            extAuthz: """
                              failure_mode_allow: false
                              status_on_error: {code: 503}
                              grpc_service:
                                envoy_grpc: {cluster_name: jwtk_forward_auth_grpc}
                                timeout: 2s

                """,
            agentCluster: """
                  - name: jwtk_forward_auth_grpc
                    type: STRICT_DNS
                    typed_extension_protocol_options:
                      envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
                        "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
                        explicit_http_config:
                          http2_protocol_options: {}
                    load_assignment:
                      cluster_name: jwtk_forward_auth_grpc
                      endpoints:
                      - lb_endpoints:
                        - endpoint: {address: {socket_address: {address: \(host), port_value: \(port)}}}

                """)
    }

    /// What both Envoy modes print alike: a listener on 8000 (underscored headers dropped) whose ext_authz
    /// filter's typed_config ends with `extAuthz`, then the router; the agent's cluster `agentCluster` beside
    /// the upstream `api`.
    private static func envoyBootstrap(extAuthz: String, agentCluster: String) -> String {
        """
        static_resources:
          listeners:
          - name: web
            address:
              socket_address: {address: 0.0.0.0, port_value: 8000}
            filter_chains:
            - filters:
              - name: envoy.filters.network.http_connection_manager
                typed_config:
                  "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
                  stat_prefix: web
                  common_http_protocol_options:
                    headers_with_underscores_action: DROP_HEADER
                  route_config:
                    virtual_hosts:
                    - name: api
                      domains: ["*"]
                      routes:
                      - match: {prefix: "/"}
                        route: {cluster: api}
                  http_filters:
                  - name: envoy.filters.http.ext_authz
                    typed_config:
                      "@type": type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.ExtAuthz
                      transport_api_version: V3
        \(extAuthz)          - name: envoy.filters.http.router
                    typed_config:
                      "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
          clusters:
        \(agentCluster)  - name: api
            type: STRICT_DNS
            load_assignment:
              cluster_name: api
              endpoints:
              - lb_endpoints:
                - endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: 8080}}}

        """
    }

    private static func hostAndPort(_ address: String) -> (Substring, Substring) {
        guard let colon = address.lastIndex(of: ":") else { return (Substring(address), "80") }
        var host = address[..<colon]
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        return (host, address[address.index(after: colon)...])
    }
}

extension String {
    fileprivate func replacingHyphens() -> String { String(map { $0 == "-" ? "_" : $0 }) }
}
