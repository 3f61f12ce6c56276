import HTTPTypes
import JWTKernelForwardAuth
import XCTest

/// `--print-gateway-config`'s texts name every claim header, in the spelling each gateway matches. The real
/// gateways run on the README's copies of these texts in IntegrationTests/forward-auth.
final class GatewayConfigurationTests: XCTestCase {
    let configuration = ForwardAuthConfiguration(
        tokenSources: [.authorization, .cookie("id_token"), .header(HTTPField.Name("X-Id-Token")!)],
        claimHeaders: [ClaimHeader(parsing: "X-Jwt-Sub=sub")!, ClaimHeader(parsing: "X-Jwt-Roles=/roles")!])

    func testEveryClaimHeaderIsNamed() {
        let caddy = GatewayConfiguration.caddy.text(for: configuration, agent: "127.0.0.1:9180")
        for line in [
            "request_header -X-Jwt-Roles", "request_header -X_Jwt_Roles", "copy_headers X-Jwt-Sub X-Jwt-Roles",
        ] {
            XCTAssertTrue(caddy.contains(line), line)
        }
        let nginx = GatewayConfiguration.nginx.text(for: configuration, agent: "127.0.0.1:9180")
        XCTAssertTrue(nginx.contains("auth_request_set $auth_x_jwt_roles $upstream_http_x_jwt_roles;"))
        XCTAssertTrue(nginx.contains("proxy_set_header X-Jwt-Roles $auth_x_jwt_roles;"))
        let traefik = GatewayConfiguration.traefik.text(for: configuration, agent: "127.0.0.1:9180")
        XCTAssertTrue(traefik.contains("aliasHeadersStrategy: delete"))
        XCTAssertTrue(traefik.contains("          - X-Jwt-Sub\n          - X-Jwt-Roles\n"))
        let envoy = GatewayConfiguration.envoy.text(for: configuration, agent: "127.0.0.1:9180")
        XCTAssertTrue(envoy.contains("patterns: [{exact: x-jwt-sub}, {exact: x-jwt-roles}]"), "lower-case")
        XCTAssertTrue(envoy.contains("patterns: [{exact: cookie}, {exact: x-id-token}]"), "token sources")
        XCTAssertTrue(envoy.contains("path_prefix: /auth"))
        XCTAssertTrue(envoy.contains("headers_with_underscores_action: DROP_HEADER"))
    }

    /// Without claim headers, nothing to copy: Caddy refuses `copy_headers` without names and Envoy an empty
    /// pattern list.
    func testNoClaimHeaders() {
        let none = ForwardAuthConfiguration()
        XCTAssertFalse(GatewayConfiguration.caddy.text(for: none, agent: "127.0.0.1:9180").contains("copy_headers"))
        XCTAssertFalse(GatewayConfiguration.traefik.text(for: none, agent: "127.0.0.1:9180").contains("authResponse"))
        let envoy = GatewayConfiguration.envoy.text(for: none, agent: "127.0.0.1:9180")
        XCTAssertFalse(envoy.contains("authorization_response"))
        XCTAssertFalse(envoy.contains("allowed_headers"), "Authorization only: sent by default")
    }

    /// gRPC mode: the agent's answer sets and removes the claim headers itself, so none is listed; the cluster is
    /// HTTP/2; failing closed with a 503.
    func testEnvoyGRPC() {
        let envoy = GatewayConfiguration.envoyGRPC.text(for: configuration, agent: "auth.internal:9181")
        for line in [
            "envoy_grpc: {cluster_name: jwtk_forward_auth_grpc}", "http2_protocol_options: {}",
            "failure_mode_allow: false", "status_on_error: {code: 503}",
            "headers_with_underscores_action: DROP_HEADER",
            "{address: auth.internal, port_value: 9181}",
        ] {
            XCTAssertTrue(envoy.contains(line), line)
        }
        XCTAssertFalse(envoy.contains("x-jwt-sub"))
        XCTAssertFalse(envoy.contains("http_service"))
        XCTAssertEqual(GatewayConfiguration(rawValue: "envoy-grpc"), .envoyGRPC)
    }

    func testAgentAddress() {
        XCTAssertEqual(GatewayConfiguration.dialable("0.0.0.0:9180"), "127.0.0.1:9180")
        XCTAssertEqual(GatewayConfiguration.dialable("auth.internal:9180"), "auth.internal:9180")
        let envoy = GatewayConfiguration.envoy.text(for: configuration, agent: "auth.internal:9181")
        XCTAssertTrue(envoy.contains("{address: auth.internal, port_value: 9181}"))
        XCTAssertTrue(envoy.contains(#"uri: "http://auth.internal:9181""#))
    }
}
