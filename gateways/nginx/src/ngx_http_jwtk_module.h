/*
 * ngx_http_jwtk_module: NGINX Plus's auth_jwt surface (and jwt-kernel's own
 * directives) on libjwtk.
 *
 * The module holds no JWT logic: token parsing, keys, policy, the
 * verified-token cache and key refresh are libjwtk's (jwtk.h). What is here:
 * configuration (directives -> one jwtk_verifier per location that enables
 * auth_jwt, key sources -> jwtk_keystore), request plumbing (token, key
 * subrequests, status codes and challenges) and variables.
 *
 * Files: ngx_http_jwtk_module.c   module, directives, create/merge, init
 *        ngx_http_jwtk_policy.c   the verifier configuration (JSON) built
 *                                 from the directives
 *        ngx_http_jwtk_keys.c     key sources: directives, the one place
 *                                 keystores are made and loaded, files, key
 *                                 subrequests, key URLs
 *        ngx_http_jwtk_sets.c     key sources with variables: the key sets
 *                                 chosen per request, cached per location
 *        ngx_http_jwtk_capture.c  the body filter taking a key subrequest's
 *                                 answer
 *        ngx_http_jwtk_access.c   the access-phase handler
 *        ngx_http_jwtk_vars.c     $jwt_claim_*, $jwt_header_*,
 *                                 auth_jwt_claim_set/header_set, $jwtk_status
 *        ngx_http_jwtk_status.c   counters summed over workers (shared
 *                                 memory) and the jwtk_status location
 *        ngx_http_jwtk_place.c    a directive's file and line, for errors
 *                                 found after parsing
 */
#ifndef NGX_HTTP_JWTK_MODULE_H
#define NGX_HTTP_JWTK_MODULE_H

#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>
#include <jwtk.h>

/* auth_jwt_type */
#define NGX_HTTP_JWTK_TYPE_SIGNED     0
#define NGX_HTTP_JWTK_TYPE_ENCRYPTED  1
#define NGX_HTTP_JWTK_TYPE_NESTED     2

/*
 * At most one refetch of a location's key subrequests per this many seconds
 * for tokens naming an unknown kid (a rotation), as jwtk.lua and libjwtk's
 * refresher do: a flood of made-up kids cannot turn into a flood of key
 * requests.
 */
#define NGX_HTTP_JWTK_KID_COOLDOWN 30

/* How long a new worker waits for its key URLs' first answers before
 * accepting connections (ms). */
#define NGX_HTTP_JWTK_FIRST_FETCH_WAIT 3000

/* The key set limit of jwtk.h: a key file or answer above it is refused. */
#define NGX_HTTP_JWTK_MAX_KEY_FILE (16 << 20)

/* Key sets cached per location when key sources have variables
 * (jwtk_key_sets). */
#define NGX_HTTP_JWTK_KEY_SETS 16

/* The kinds of key a keystore holds and a location needs
 * (ngx_http_jwtk_load_keys, ngx_http_jwtk_kinds_needed). */
#define NGX_HTTP_JWTK_KEYS_VERIFY   0x1     /* signature keys */
#define NGX_HTTP_JWTK_KEYS_DECRYPT  0x2     /* decryption keys (JWE) */

/* Where a directive was written (file.len 0: nowhere recorded). */
typedef struct {
    ngx_str_t   file;           /* NUL-terminated */
    ngx_uint_t  line;
} ngx_http_jwtk_place_t;

/* auth_jwt_key_file or auth_jwt_key_request: what was written, and where. */
typedef struct {
    ngx_str_t                  name;
    ngx_http_complex_value_t   value;   /* lengths NULL: no variables */
    ngx_http_jwtk_place_t      place;
    unsigned                   request:1;   /* auth_jwt_key_request */
} ngx_http_jwtk_key_source_t;

/* A value the access handler copies out of a verified token for the
 * variables (claims or header). */
typedef struct {
    ngx_str_t   variable;       /* the variable's name, lower case, no "$" */
    ngx_str_t   pointer;        /* RFC 6901 JSON Pointer */
    unsigned    header:1;       /* look in the JOSE header */
} ngx_http_jwtk_value_t;

/* auth_jwt_require $value ... [error=401|403] */
typedef struct {
    ngx_array_t *values;        /* ngx_http_complex_value_t */
    ngx_uint_t   error;         /* 401 or 403 */
} ngx_http_jwtk_require_t;

/*
 * A key source's state in one worker: the last document it gave. A key
 * subrequest's (uri: the URI) or, in a key set chosen per request, a key
 * file's (file: uri is its full path, NUL-terminated).
 */
typedef struct {
    ngx_str_t   uri;
    u_char     *body;       /* ngx_alloc'ed; NULL before the first answer */
    size_t      len;
    time_t      fetched;    /* when it last answered (files: checked) */
    time_t      failed;     /* when it last failed (0: not since) */
    ngx_msec_t  asked;      /* when the answer held was asked for: a
                               slower, older answer never replaces it */
    ngx_msec_t  in_flight;  /* when this worker's running subrequest for
                               it started (0: none) */
    time_t      mtime;      /* files: the mtime and size read */
    off_t       size;
    unsigned    file:1;
} ngx_http_jwtk_key_request_t;

/*
 * The key sources of one configuration level and the keystore they feed.
 * Levels without key directives share their parent's.
 */
typedef struct {
    jwtk_keystore *keystore;
    ngx_array_t   *files;       /* ngx_str_t: contents read at configuration */
    ngx_array_t   *requests;    /* ngx_http_jwtk_key_request_t */
    ngx_array_t   *sources;     /* ngx_http_jwtk_key_source_t *: resolved
                                   per request (a source has variables);
                                   NULL: the sources are fixed */
    ngx_array_t   *fixed;       /* ngx_http_jwtk_key_source_t *: the fixed
                                   key files' directives (their places) */
    time_t         kid_refetch; /* this worker's last refetch for a kid */
    ngx_str_t      url;         /* jwtk_key_url (pull mode) */
    ngx_uint_t     pull;        /* fetched by libjwtk's refresher */
    ngx_str_t      label;       /* where it was declared, for the counters */
    ngx_uint_t     stats_slot;
    jwtk_verifier *first;       /* a verifier on this keystore (counters) */
    jwtk_stats     last;        /* this worker's counters, last published */
    ngx_uint_t     kinds;       /* NGX_HTTP_JWTK_KEYS_*: the kinds of key the
                                   keystore holds from the documents */
    ngx_str_t      no_verify;   /* the fixed key files hold no signature
                                   key: libjwtk's reason, for the refusal
                                   of a location needing some */
    unsigned       subrequests:1;   /* any auth_jwt_key_request */
} ngx_http_jwtk_keys_t;

/* One location's verifier. */
typedef struct {
    jwtk_verifier        *verifier;
    ngx_http_jwtk_keys_t *keys;
    time_t                cache;      /* this location's auth_jwt_key_cache */
    ngx_uint_t            need;       /* NGX_HTTP_JWTK_KEYS_*: the kinds
                                         its tokens need from the key
                                         files and subrequests */
    ngx_str_t             label;
    ngx_uint_t            stats_slot;
    jwtk_stats            last;

    /* Key sources with variables: the verifier's configuration, and the
     * key sets of this worker, most recently used first. */
    ngx_str_t             json;
    ngx_queue_t           sets;
    ngx_uint_t            nsets;
    ngx_uint_t            max_sets;
} ngx_http_jwtk_policy_t;

/*
 * A key set chosen by the resolved names of a level's key sources (files
 * and URIs with variables), in one worker: its keystore, the location's
 * verifier on it, and each source's last document. Parsed again only when a
 * document changed.
 */
typedef struct {
    ngx_queue_t                   queue;
    u_char                       *name;     /* resolved names, NUL after
                                               each */
    size_t                        name_len;
    jwtk_keystore                *keystore;
    jwtk_verifier                *verifier;
    jwtk_stats                    last;     /* counters, last published */
    ngx_http_jwtk_key_request_t  *docs;     /* one per source */
    ngx_uint_t                    ndocs;
    ngx_uint_t                    refs;     /* requests using it now */
    ngx_uint_t                    kinds;    /* NGX_HTTP_JWTK_KEYS_* held */
    time_t                        kid_refetch;
} ngx_http_jwtk_set_t;

typedef struct {
    ngx_flag_t                 enabled;       /* auth_jwt: UNSET, 0 or 1 */
    ngx_http_complex_value_t  *realm;
    ngx_http_complex_value_t  *token;         /* token=$variable; NULL:
                                                 Authorization: Bearer */
    ngx_http_jwtk_place_t      auth_place;    /* where auth_jwt was */
    ngx_uint_t                 type;          /* auth_jwt_type */

    /* key sources: one group, inherited together */
    ngx_array_t               *key_files;     /* ngx_http_jwtk_key_source_t */
    ngx_array_t               *key_requests;  /* ngx_http_jwtk_key_source_t */
    ngx_str_t                  key_url;       /* jwtk_key_url's URL, or
                                                 jwtk_oidc's issuer */
    ngx_array_t               *key_url_args;  /* ngx_str_t name=value */
    ngx_flag_t                 key_discovery; /* key_url is an issuer to
                                                 discover (jwtk_oidc) */
    time_t                     key_cache;
    ngx_uint_t                 key_sets;      /* jwtk_key_sets */
    ngx_http_jwtk_keys_t      *keys;          /* built from this level's
                                                 group (or NULL) */

    /* policy */
    time_t                     leeway;
    ngx_array_t               *requires;      /* ngx_http_jwtk_require_t */
    ngx_array_t               *provider;      /* ngx_str_t: name
                                                 [project_id=..]
                                                 [tenant_id=..] */
    ngx_array_t               *issuers;
    ngx_array_t               *audiences;
    ngx_array_t               *algorithms;
    ngx_array_t               *required_claims;
    ngx_array_t               *claim_requirements; /* ngx_str_t: libjwtk
                                                      "claims" entries */
    ngx_flag_t                 require_exp;
    ngx_flag_t                 cache;
    size_t                     max_token_size;

    ngx_http_jwtk_policy_t    *policy;        /* built when enabled */
    ngx_flag_t                 status;        /* jwtk_status; */
} ngx_http_jwtk_loc_conf_t;

typedef struct {
    ngx_array_t      values;      /* ngx_http_jwtk_value_t: what the access
                                     handler copies */
    ngx_array_t      policies;    /* ngx_http_jwtk_policy_t *: every
                                     verifier built */
    ngx_array_t      keysets;     /* ngx_http_jwtk_keys_t *: every keystore
                                     built */
    jwtk_ctx        *conf_ctx;    /* libjwtk's messages at configuration */
    ngx_shm_zone_t  *zone;        /* the counters (ngx_http_jwtk_status.c) */
    ngx_event_t      publish;     /* the worker's timer that publishes its
                                     counters */
    unsigned         unkeyed:1;   /* a server level with auth_jwt and no key
                                     source */
} ngx_http_jwtk_main_conf_t;

/* Per request. */
typedef struct {
    ngx_str_t   *values;        /* one per main conf value; data NULL:
                                   absent */
    ngx_int_t    status;        /* the jwtk status, or -1 before
                                   verification */
    ngx_int_t    answer;        /* what the handler returned once done */
    ngx_uint_t   next_request;  /* the next key source to consider */
    ngx_http_jwtk_key_request_t *fetching;  /* the key subrequest running
                                               for this request */
    ngx_msec_t   asked;         /* when it started */
    ngx_int_t    key_result;    /* its outcome: NGX_OK, NGX_ERROR,
                                   NGX_AGAIN (running) */
    ngx_http_jwtk_set_t *set;   /* the key set chosen (variables in key
                                   sources), NULL: the level's keystore */
    ngx_str_t    payload;       /* $jwt_payload: an encrypted token's
                                   decrypted claims */
    unsigned     done:1;
    unsigned     fetched:1;     /* a key source gave a new document */
    unsigned     refetch:1;     /* fetching again for an unknown kid: every
                                   key subrequest is due */
} ngx_http_jwtk_ctx_t;

/* A key subrequest's own context: its answer, taken by the capture body
 * filter. */
typedef struct {
    u_char      *body;          /* ngx_alloc'ed; freed with the subrequest
                                   unless handed to the key source */
    size_t       len;
    size_t       size;
    unsigned     too_big:1;
} ngx_http_jwtk_capture_t;

extern ngx_module_t ngx_http_jwtk_module;

/* ngx_http_jwtk_module.c */
jwtk_ctx *ngx_http_jwtk_worker_ctx(void);
jwtk_ctx *ngx_http_jwtk_conf_ctx(ngx_conf_t *cf);

/* ngx_http_jwtk_policy.c */
char *ngx_http_jwtk_build_policy(ngx_conf_t *cf,
    ngx_http_jwtk_loc_conf_t *conf);
u_char *ngx_http_jwtk_quote(u_char *p, u_char *last, const u_char *s,
    size_t n);
char *ngx_http_jwtk_claim_requirement(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);

/* ngx_http_jwtk_place.c */
ngx_int_t ngx_http_jwtk_place_here(ngx_conf_t *cf,
    ngx_http_jwtk_place_t *place);
void ngx_cdecl ngx_http_jwtk_place_error(ngx_uint_t level, ngx_conf_t *cf,
    ngx_http_jwtk_place_t *place, ngx_err_t err, const char *fmt, ...);

/* ngx_http_jwtk_keys.c */
char *ngx_http_jwtk_key_source(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);
char *ngx_http_jwtk_build_keys(ngx_conf_t *cf,
    ngx_http_jwtk_loc_conf_t *conf);
int ngx_http_jwtk_new_keystore(jwtk_keystore **ks);
int ngx_http_jwtk_load_keys(jwtk_keystore *ks, jwtk_str *docs, size_t n,
    jwtk_ctx *ctx, ngx_uint_t *kinds);
ngx_uint_t ngx_http_jwtk_kinds_needed(ngx_http_jwtk_loc_conf_t *conf);
char *ngx_http_jwtk_check_kinds_conf(ngx_conf_t *cf,
    ngx_http_jwtk_loc_conf_t *conf, ngx_uint_t need);
ngx_int_t ngx_http_jwtk_check_kinds(ngx_http_request_t *r,
    ngx_http_jwtk_policy_t *policy, ngx_http_jwtk_ctx_t *ctx);
ngx_int_t ngx_http_jwtk_fetch_keys(ngx_http_request_t *r,
    ngx_http_jwtk_policy_t *policy, ngx_http_jwtk_ctx_t *ctx);
ngx_uint_t ngx_http_jwtk_refetch_for_kid(ngx_http_jwtk_policy_t *policy,
    ngx_http_jwtk_ctx_t *ctx);
ngx_int_t ngx_http_jwtk_start_keys(ngx_cycle_t *cycle,
    ngx_http_jwtk_main_conf_t *mcf);

/* ngx_http_jwtk_sets.c */
ngx_int_t ngx_http_jwtk_choose_set(ngx_http_request_t *r,
    ngx_http_jwtk_policy_t *policy, ngx_http_jwtk_ctx_t *ctx);
ngx_int_t ngx_http_jwtk_read_key_doc(ngx_http_request_t *r,
    ngx_http_jwtk_policy_t *policy, ngx_http_jwtk_ctx_t *ctx,
    ngx_http_jwtk_key_request_t *doc);
int ngx_http_jwtk_load_set(ngx_http_request_t *r, ngx_http_jwtk_set_t *set,
    ngx_http_jwtk_keys_t *keys, jwtk_ctx *jctx, ngx_uint_t *kinds);
ngx_int_t ngx_http_jwtk_init_sets(ngx_conf_t *cf,
    ngx_http_jwtk_policy_t *policy, ngx_str_t *json, ngx_uint_t max_sets);

/* ngx_http_jwtk_capture.c */
ngx_int_t ngx_http_jwtk_init_capture(void);
ngx_int_t ngx_http_jwtk_capture(ngx_http_request_t *sr);

/* ngx_http_jwtk_access.c */
ngx_int_t ngx_http_jwtk_access_handler(ngx_http_request_t *r);

/* ngx_http_jwtk_vars.c */
ngx_int_t ngx_http_jwtk_add_variables(ngx_conf_t *cf);
ngx_int_t ngx_http_jwtk_collect_values(ngx_conf_t *cf,
    ngx_http_jwtk_main_conf_t *mcf);
char *ngx_http_jwtk_claim_set(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);
ngx_int_t ngx_http_jwtk_copy_values(ngx_http_request_t *r,
    ngx_http_jwtk_main_conf_t *mcf, ngx_http_jwtk_ctx_t *ctx, jwtk_ctx *jctx);
ngx_int_t ngx_http_jwtk_copy_payload(ngx_http_request_t *r,
    ngx_http_jwtk_ctx_t *ctx, jwtk_str *json);

/* ngx_http_jwtk_status.c */
ngx_int_t ngx_http_jwtk_status_init_zone(ngx_conf_t *cf,
    ngx_http_jwtk_main_conf_t *mcf);
ngx_int_t ngx_http_jwtk_status_start(ngx_cycle_t *cycle,
    ngx_http_jwtk_main_conf_t *mcf);
void ngx_http_jwtk_status_publish(ngx_http_jwtk_main_conf_t *mcf);
void ngx_http_jwtk_publish_set(ngx_http_jwtk_policy_t *policy,
    ngx_http_jwtk_set_t *set);
void ngx_http_jwtk_count(ngx_http_jwtk_policy_t *policy, ngx_uint_t what);
char *ngx_http_jwtk_status(ngx_conf_t *cf, ngx_command_t *cmd, void *conf);

/* What the module counts itself, before or after libjwtk
 * (ngx_http_jwtk_count). */
#define NGX_HTTP_JWTK_COUNT_MISSING     0   /* no token */
#define NGX_HTTP_JWTK_COUNT_REQUIRE     1   /* an auth_jwt_require failed */
#define NGX_HTTP_JWTK_COUNT_KEYS        2   /* a key source failed: 500 */
#define NGX_HTTP_JWTK_COUNT_EVICTED     3   /* a key set left the cache */

#endif
