"""The pieces of an Envoy bootstrap the envoy/ harnesses build their configurations from: the jwtk
dynamic-module filter (and the do-nothing floor filter), a loopback listener with an HTTP connection manager, a
static loopback cluster, the admin address. Each harness composes its own bootstrap (static listeners, LDS from a
file, jwt_authn beside)."""
import json

ROUTER = {"name": "envoy.filters.http.router", "typed_config": {
    "@type": "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}
# A route to the cluster "upstream", and a direct 200 for listeners that only need the filters' verdicts.
TO_UPSTREAM = {"match": {"prefix": "/"}, "route": {"cluster": "upstream"}}
DIRECT_200 = {"match": {"prefix": "/"}, "direct_response": {"status": 200, "body": {"inline_string": "ok"}}}


def dynamic_module_filter(module, name, value):
    """The HTTP filter of dynamic module lib<module>.so as filter `name`, value (a string) its filter_config."""
    return {"name": name, "typed_config": {
        "@type": "type.googleapis.com/envoy.extensions.filters.http.dynamic_modules.v3.DynamicModuleFilter",
        "dynamic_module_config": {"name": module, "do_not_close": True},
        "filter_name": name,
        "filter_config": {"@type": "type.googleapis.com/google.protobuf.StringValue", "value": value}}}


def jwtk_filter(cfg):
    """The module's filter (gateways/envoy) with cfg (a dict) as its JSON configuration."""
    return dynamic_module_filter("jwtk_envoy", "jwtk", json.dumps(cfg))


def floor_filter():
    """floor_module.c's filter, which does nothing (run.sh builds libenvoy_floor.so beside the module)."""
    return dynamic_module_filter("envoy_floor", "floor", "")


def listener(name, port, http_filters, route=TO_UPSTREAM):
    """A listener on 127.0.0.1:port: the given HTTP filters, then the router, one route for every path."""
    return {
        "name": name,
        "address": {"socket_address": {"address": "127.0.0.1", "port_value": port}},
        "filter_chains": [{"filters": [{
            "name": "envoy.filters.network.http_connection_manager",
            "typed_config": {
                "@type": "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3"
                         ".HttpConnectionManager",
                "stat_prefix": name,
                "route_config": {"virtual_hosts": [{"name": "all", "domains": ["*"], "routes": [route]}]},
                "http_filters": list(http_filters) + [ROUTER]}}]}],
    }


def cluster(name, port):
    """A static cluster of one endpoint, 127.0.0.1:port."""
    return {"name": name, "type": "STATIC", "connect_timeout": "1s",
            "load_assignment": {"cluster_name": name, "endpoints": [{"lb_endpoints": [
                {"endpoint": {"address": {"socket_address": {"address": "127.0.0.1", "port_value": port}}}}]}]}}


def admin(port):
    return {"address": {"socket_address": {"address": "127.0.0.1", "port_value": port}}}
