/*
 * ngx_http_jwtk_module: NGINX Plus's auth_jwt surface (and jwt-kernel's own directives) on libjwtk.
 *
 * The module holds no JWT logic: token parsing, keys, policy, the verified-token cache and key refresh
 * are libjwtk's (jwtk.h). What is here: configuration (directives -> one jwtk_verifier per location that
 * enables auth_jwt, key sources -> jwtk_keystore), request plumbing (token, key subrequests, status
 * codes and challenges) and variables.
 *
 * Files: ngx_http_jwtk_module.c  module, directives, create/merge, init
 *        ngx_http_jwtk_policy.c  the verifier configuration (JSON) built from the directives
 *        ngx_http_jwtk_keys.c    key sources: files, key subrequests, key URL
 *        ngx_http_jwtk_access.c  the access-phase handler
 *        ngx_http_jwtk_vars.c    $jwt_claim_*, $jwt_header_*, auth_jwt_claim_set/header_set, $jwtk_status
 *        ngx_http_jwtk_status.c  counters summed over workers (shared memory) and the jwtk_status location
 *        ngx_http_jwtk_place.c   a directive's file and line, for errors found after parsing
 */
#ifndef NGX_HTTP_JWTK_MODULE_H
#define NGX_HTTP_JWTK_MODULE_H

#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>
#include <jwtk.h>

#define NGX_HTTP_JWTK_TYPE_SIGNED 0

/* At most one refetch of a location's key subrequests per this many seconds for tokens naming an
 * unknown kid (a rotation), as jwtk.lua and libjwtk's refresher do: a flood of made-up kids cannot turn
 * into a flood of key requests. */
#define NGX_HTTP_JWTK_KID_COOLDOWN 30

/* How long a new worker waits for its key URLs' first answers before accepting connections (ms). */
#define NGX_HTTP_JWTK_FIRST_FETCH_WAIT 3000

/* Where a directive was written (file.len 0: nowhere recorded). */
typedef struct {
    ngx_str_t   file;           /* NUL-terminated */
    ngx_uint_t  line;
} ngx_http_jwtk_place_t;

/* auth_jwt_key_file: the path as written, and where. */
typedef struct {
    ngx_str_t              name;
    ngx_http_jwtk_place_t  place;
} ngx_http_jwtk_key_file_t;

/* A value the access handler copies out of a verified token for the variables (claims or header). */
typedef struct {
    ngx_str_t   variable;       /* the variable's name, lower case, without "$" */
    ngx_str_t   pointer;        /* RFC 6901 JSON Pointer */
    unsigned    header:1;       /* look in the JOSE header */
} ngx_http_jwtk_value_t;

/* auth_jwt_require $value ... [error=401|403] */
typedef struct {
    ngx_array_t *values;        /* ngx_http_complex_value_t */
    ngx_uint_t   error;         /* 401 or 403 */
} ngx_http_jwtk_require_t;

/* A key subrequest's state in one worker: the last document it answered. */
typedef struct {
    ngx_str_t   uri;
    u_char     *body;           /* ngx_alloc'ed in the worker; NULL before the first answer */
    size_t      len;
    time_t      fetched;        /* when it last answered 2xx (0: never) */
    time_t      failed;         /* when it last failed (0: not since the last success) */
    ngx_msec_t  asked;          /* when the answer held was asked for: a slower, older answer never replaces it */
    ngx_msec_t  in_flight;      /* when this worker's running subrequest for it started (0: none) */
} ngx_http_jwtk_key_request_t;

/* The key sources of one configuration level and the keystore they feed. Levels without key
 * directives share their parent's. */
typedef struct {
    jwtk_keystore *keystore;
    ngx_array_t   *files;       /* ngx_str_t: contents read at configuration */
    ngx_array_t   *requests;    /* ngx_http_jwtk_key_request_t */
    time_t         kid_refetch; /* this worker's last refetch for an unknown kid */
    ngx_str_t      url;         /* jwtk_key_url (pull mode) */
    ngx_uint_t     pull;        /* fetched by libjwtk's refresher (jwtk_key_url, a provider's URL) */
    ngx_str_t      label;       /* where it was declared, for the counters */
    ngx_uint_t     stats_slot;
    jwtk_verifier *first;       /* a verifier on this keystore, to read its counters */
    jwtk_stats     last;        /* this worker's counters at the last publication */
} ngx_http_jwtk_keys_t;

/* One location's verifier. */
typedef struct {
    jwtk_verifier        *verifier;
    ngx_http_jwtk_keys_t *keys;
    time_t                cache;          /* this location's auth_jwt_key_cache */
    ngx_str_t             label;
    ngx_uint_t            stats_slot;
    jwtk_stats            last;
} ngx_http_jwtk_policy_t;

typedef struct {
    ngx_flag_t                 enabled;       /* auth_jwt: NGX_CONF_UNSET, 0 (off) or 1 */
    ngx_http_complex_value_t  *realm;
    ngx_http_complex_value_t  *token;         /* token=$variable; NULL: Authorization: Bearer */
    ngx_http_jwtk_place_t      auth_place;    /* where auth_jwt was written */
    ngx_uint_t                 type;          /* auth_jwt_type */

    /* key sources: one group, inherited together */
    ngx_array_t               *key_files;     /* ngx_http_jwtk_key_file_t */
    ngx_array_t               *key_requests;  /* ngx_str_t uris */
    ngx_str_t                  key_url;       /* jwtk_key_url's URL, or jwtk_oidc's issuer */
    ngx_array_t               *key_url_args;  /* ngx_str_t name=value */
    ngx_flag_t                 key_discovery; /* key_url is an issuer to discover (jwtk_oidc) */
    time_t                     key_cache;
    ngx_http_jwtk_keys_t      *keys;          /* built from this level's group (or NULL) */

    /* policy */
    time_t                     leeway;
    ngx_array_t               *requires;      /* ngx_http_jwtk_require_t */
    ngx_array_t               *provider;      /* ngx_str_t: name [project_id=..] [tenant_id=..] */
    ngx_array_t               *issuers;
    ngx_array_t               *audiences;
    ngx_array_t               *algorithms;
    ngx_array_t               *required_claims;
    ngx_array_t               *claim_requirements; /* ngx_str_t: libjwtk "claims" entries, JSON objects */
    ngx_flag_t                 require_exp;
    ngx_flag_t                 cache;
    size_t                     max_token_size;

    ngx_http_jwtk_policy_t    *policy;        /* built when enabled */
    ngx_flag_t                 status;        /* jwtk_status; */
} ngx_http_jwtk_loc_conf_t;

typedef struct {
    ngx_array_t      values;      /* ngx_http_jwtk_value_t: what the access handler copies */
    ngx_array_t      policies;    /* ngx_http_jwtk_policy_t *: every verifier built */
    ngx_array_t      keysets;     /* ngx_http_jwtk_keys_t *: every keystore built */
    ngx_shm_zone_t  *zone;        /* the counters (ngx_http_jwtk_status.c) */
    ngx_event_t      publish;     /* the worker's timer that publishes its counters */
    unsigned         unkeyed:1;   /* a server level with auth_jwt and no key source */
} ngx_http_jwtk_main_conf_t;

/* Per request. */
typedef struct {
    ngx_str_t   *values;          /* one per ngx_http_jwtk_main_conf_t.values; data NULL: absent */
    ngx_int_t    status;          /* the jwtk status, or -1 before verification */
    ngx_int_t    answer;          /* what the handler returned once done (NGX_OK or an HTTP status) */
    ngx_uint_t   next_request;    /* the next key subrequest to consider */
    ngx_http_jwtk_key_request_t *fetching;   /* the key subrequest running for this request */
    ngx_msec_t   asked;           /* when it started */
    ngx_int_t    key_result;      /* its outcome: NGX_OK, NGX_ERROR, NGX_AGAIN (running) */
    unsigned     done:1;
    unsigned     fetched:1;       /* a key subrequest answered during this request */
    unsigned     refetch:1;       /* fetching again for an unknown kid: every key subrequest is due */

    /* A key subrequest's own context instead (same type, so no handler can mistake one for the other):
     * the answer's body, taken by the capture body filter. */
    unsigned     capture:1;
    unsigned     too_big:1;
    u_char      *body;            /* ngx_alloc'ed; freed with the request unless handed to the key request */
    size_t       body_len;
    size_t       body_size;
} ngx_http_jwtk_ctx_t;

extern ngx_module_t ngx_http_jwtk_module;

/* ngx_http_jwtk_module.c */
jwtk_ctx *ngx_http_jwtk_worker_ctx(void);

/* ngx_http_jwtk_policy.c */
char *ngx_http_jwtk_build_policy(ngx_conf_t *cf, ngx_http_jwtk_loc_conf_t *conf);
u_char *ngx_http_jwtk_quote(u_char *p, u_char *last, const u_char *s, size_t n);

char *ngx_http_jwtk_claim_requirement(ngx_conf_t *cf, ngx_command_t *cmd, void *conf);

/* ngx_http_jwtk_place.c */
ngx_int_t ngx_http_jwtk_place_here(ngx_conf_t *cf,
    ngx_http_jwtk_place_t *place);
void ngx_cdecl ngx_http_jwtk_place_error(ngx_uint_t level, ngx_conf_t *cf,
    ngx_http_jwtk_place_t *place, ngx_err_t err, const char *fmt, ...);

/* ngx_http_jwtk_keys.c */
char *ngx_http_jwtk_key_file(ngx_conf_t *cf, ngx_command_t *cmd, void *conf);
char *ngx_http_jwtk_build_keys(ngx_conf_t *cf, ngx_http_jwtk_loc_conf_t *conf);
ngx_int_t ngx_http_jwtk_fetch_keys(ngx_http_request_t *r, ngx_http_jwtk_policy_t *policy,
    ngx_http_jwtk_ctx_t *ctx);
ngx_uint_t ngx_http_jwtk_refetch_for_kid(ngx_http_jwtk_keys_t *keys);
ngx_int_t ngx_http_jwtk_init_capture(void);
ngx_int_t ngx_http_jwtk_start_keys(ngx_cycle_t *cycle, ngx_http_jwtk_main_conf_t *mcf);

/* ngx_http_jwtk_access.c */
ngx_int_t ngx_http_jwtk_access_handler(ngx_http_request_t *r);

/* ngx_http_jwtk_vars.c */
ngx_int_t ngx_http_jwtk_add_variables(ngx_conf_t *cf);
ngx_int_t ngx_http_jwtk_collect_values(ngx_conf_t *cf, ngx_http_jwtk_main_conf_t *mcf);
char *ngx_http_jwtk_claim_set(ngx_conf_t *cf, ngx_command_t *cmd, void *conf);
ngx_int_t ngx_http_jwtk_copy_values(ngx_http_request_t *r, ngx_http_jwtk_main_conf_t *mcf,
    ngx_http_jwtk_ctx_t *ctx, jwtk_ctx *jctx);

/* ngx_http_jwtk_status.c */
ngx_int_t ngx_http_jwtk_status_init_zone(ngx_conf_t *cf, ngx_http_jwtk_main_conf_t *mcf);
ngx_int_t ngx_http_jwtk_status_start(ngx_cycle_t *cycle, ngx_http_jwtk_main_conf_t *mcf);
void ngx_http_jwtk_status_publish(ngx_http_jwtk_main_conf_t *mcf);
void ngx_http_jwtk_count(ngx_http_jwtk_policy_t *policy, ngx_uint_t what);
char *ngx_http_jwtk_status(ngx_conf_t *cf, ngx_command_t *cmd, void *conf);

/* What the module itself denies before or after libjwtk (ngx_http_jwtk_count). */
#define NGX_HTTP_JWTK_COUNT_MISSING     0   /* no token */
#define NGX_HTTP_JWTK_COUNT_REQUIRE     1   /* an auth_jwt_require failed */
#define NGX_HTTP_JWTK_COUNT_KEYS        2   /* a key subrequest or its document failed: 500 */

#endif
