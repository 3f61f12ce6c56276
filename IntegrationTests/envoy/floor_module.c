/*
 * floor_module.c - an Envoy dynamic-module HTTP filter that does nothing: every hook passes the stream on. The
 * side-by-side load and instruction rows run it as "a dynamic module that does nothing" (side_by_side.py), the
 * floor of what Envoy spends on any dynamic-module filter per request (its per-stream filter object, the hooks
 * of both directions) before the module's own code runs; jwt_authn, a filter compiled into Envoy, has no such
 * cost. Built by IntegrationTests/envoy/run.sh against the ABI excerpt in gateways/envoy/abi/abi.h.
 */
#include <stddef.h>

#include "abi/abi.h"

#define EXPORT __attribute__((visibility("default")))

/* Any non-NULL pointer: the filter has no configuration and no per-stream state. */
static int floor_config;

EXPORT envoy_dynamic_module_type_abi_version_module_ptr envoy_dynamic_module_on_program_init(void)
{
    return ENVOY_DYNAMIC_MODULES_ABI_VERSION;
}

EXPORT envoy_dynamic_module_type_http_filter_config_module_ptr envoy_dynamic_module_on_http_filter_config_new(
    envoy_dynamic_module_type_http_filter_config_envoy_ptr host, envoy_dynamic_module_type_envoy_buffer name,
    envoy_dynamic_module_type_envoy_buffer config)
{
    (void) host; (void) name; (void) config;
    return &floor_config;
}

EXPORT void envoy_dynamic_module_on_http_filter_config_destroy(
    envoy_dynamic_module_type_http_filter_config_module_ptr p)
{
    (void) p;
}

EXPORT envoy_dynamic_module_type_http_filter_module_ptr envoy_dynamic_module_on_http_filter_new(
    envoy_dynamic_module_type_http_filter_config_module_ptr config, envoy_dynamic_module_type_http_filter_envoy_ptr fe)
{
    (void) fe;
    return config;
}

EXPORT envoy_dynamic_module_type_on_http_filter_request_headers_status
envoy_dynamic_module_on_http_filter_request_headers(envoy_dynamic_module_type_http_filter_envoy_ptr fe,
                                                    envoy_dynamic_module_type_http_filter_module_ptr fm, bool eos)
{
    (void) fe; (void) fm; (void) eos;
    return envoy_dynamic_module_type_on_http_filter_request_headers_status_Continue;
}

EXPORT void envoy_dynamic_module_on_http_filter_destroy(envoy_dynamic_module_type_http_filter_module_ptr fm)
{
    (void) fm;
}

EXPORT envoy_dynamic_module_type_on_http_filter_request_body_status
envoy_dynamic_module_on_http_filter_request_body(envoy_dynamic_module_type_http_filter_envoy_ptr fe,
                                                 envoy_dynamic_module_type_http_filter_module_ptr fm, bool eos)
{
    (void) fe; (void) fm; (void) eos;
    return envoy_dynamic_module_type_on_http_filter_request_body_status_Continue;
}

EXPORT envoy_dynamic_module_type_on_http_filter_request_trailers_status
envoy_dynamic_module_on_http_filter_request_trailers(envoy_dynamic_module_type_http_filter_envoy_ptr fe,
                                                     envoy_dynamic_module_type_http_filter_module_ptr fm)
{
    (void) fe; (void) fm;
    return envoy_dynamic_module_type_on_http_filter_request_trailers_status_Continue;
}

EXPORT envoy_dynamic_module_type_on_http_filter_response_headers_status
envoy_dynamic_module_on_http_filter_response_headers(envoy_dynamic_module_type_http_filter_envoy_ptr fe,
                                                     envoy_dynamic_module_type_http_filter_module_ptr fm, bool eos)
{
    (void) fe; (void) fm; (void) eos;
    return envoy_dynamic_module_type_on_http_filter_response_headers_status_Continue;
}

EXPORT envoy_dynamic_module_type_on_http_filter_response_body_status
envoy_dynamic_module_on_http_filter_response_body(envoy_dynamic_module_type_http_filter_envoy_ptr fe,
                                                  envoy_dynamic_module_type_http_filter_module_ptr fm, bool eos)
{
    (void) fe; (void) fm; (void) eos;
    return envoy_dynamic_module_type_on_http_filter_response_body_status_Continue;
}

EXPORT envoy_dynamic_module_type_on_http_filter_response_trailers_status
envoy_dynamic_module_on_http_filter_response_trailers(envoy_dynamic_module_type_http_filter_envoy_ptr fe,
                                                      envoy_dynamic_module_type_http_filter_module_ptr fm)
{
    (void) fe; (void) fm;
    return envoy_dynamic_module_type_on_http_filter_response_trailers_status_Continue;
}

EXPORT void envoy_dynamic_module_on_http_filter_stream_complete(
    envoy_dynamic_module_type_http_filter_envoy_ptr fe, envoy_dynamic_module_type_http_filter_module_ptr fm)
{
    (void) fe; (void) fm;
}

EXPORT void envoy_dynamic_module_on_http_filter_http_callout_done(
    envoy_dynamic_module_type_http_filter_envoy_ptr fe, envoy_dynamic_module_type_http_filter_module_ptr fm,
    uint64_t id, envoy_dynamic_module_type_http_callout_result result, envoy_dynamic_module_type_envoy_http_header *h,
    size_t nh, envoy_dynamic_module_type_envoy_buffer *b, size_t nb)
{
    (void) fe; (void) fm; (void) id; (void) result; (void) h; (void) nh; (void) b; (void) nb;
}

EXPORT void envoy_dynamic_module_on_http_filter_http_stream_headers(
    envoy_dynamic_module_type_http_filter_envoy_ptr fe, envoy_dynamic_module_type_http_filter_module_ptr fm,
    uint64_t id, envoy_dynamic_module_type_envoy_http_header *h, size_t nh, bool end)
{
    (void) fe; (void) fm; (void) id; (void) h; (void) nh; (void) end;
}

EXPORT void envoy_dynamic_module_on_http_filter_http_stream_data(
    envoy_dynamic_module_type_http_filter_envoy_ptr fe, envoy_dynamic_module_type_http_filter_module_ptr fm,
    uint64_t id, const envoy_dynamic_module_type_envoy_buffer *d, size_t nd, bool end)
{
    (void) fe; (void) fm; (void) id; (void) d; (void) nd; (void) end;
}

EXPORT void envoy_dynamic_module_on_http_filter_http_stream_trailers(
    envoy_dynamic_module_type_http_filter_envoy_ptr fe, envoy_dynamic_module_type_http_filter_module_ptr fm,
    uint64_t id, envoy_dynamic_module_type_envoy_http_header *t, size_t nt)
{
    (void) fe; (void) fm; (void) id; (void) t; (void) nt;
}

EXPORT void envoy_dynamic_module_on_http_filter_http_stream_complete(
    envoy_dynamic_module_type_http_filter_envoy_ptr fe, envoy_dynamic_module_type_http_filter_module_ptr fm,
    uint64_t id)
{
    (void) fe; (void) fm; (void) id;
}

EXPORT void envoy_dynamic_module_on_http_filter_http_stream_reset(
    envoy_dynamic_module_type_http_filter_envoy_ptr fe, envoy_dynamic_module_type_http_filter_module_ptr fm,
    uint64_t id, envoy_dynamic_module_type_http_stream_reset_reason reason)
{
    (void) fe; (void) fm; (void) id; (void) reason;
}

EXPORT void envoy_dynamic_module_on_http_filter_scheduled(
    envoy_dynamic_module_type_http_filter_envoy_ptr fe, envoy_dynamic_module_type_http_filter_module_ptr fm,
    uint64_t id)
{
    (void) fe; (void) fm; (void) id;
}

EXPORT void envoy_dynamic_module_on_http_filter_downstream_above_write_buffer_high_watermark(
    envoy_dynamic_module_type_http_filter_envoy_ptr fe, envoy_dynamic_module_type_http_filter_module_ptr fm)
{
    (void) fe; (void) fm;
}

EXPORT void envoy_dynamic_module_on_http_filter_downstream_below_write_buffer_low_watermark(
    envoy_dynamic_module_type_http_filter_envoy_ptr fe, envoy_dynamic_module_type_http_filter_module_ptr fm)
{
    (void) fe; (void) fm;
}
