/*
 * mod_auth_jwtk.h - what the files of mod_auth_jwtk share (docs/APACHE.md is the guide).
 *
 * mod_auth_jwtk.c       the module: hooks, AuthType Bearer/jwtk (check_authn), the verdict of a request
 * jwtk_apache_config.c  directives, per-directory configuration and its merge, the policies' verifiers
 *                       (built in post_config, before the fork) and their key refresh (started in child_init)
 * jwtk_apache_claims.c  claims out (r->user, request headers, subprocess environment), forged copies
 *                       stripped, the per-request jwtk_ctx lease
 * jwtk_apache_authz.c   the authz provider behind `Require jwtk-claim`
 *
 * Plumbing only: the bearer grammar, verification, claim requirements, the challenge and the status are
 * libjwtk's (jwtk.h, "the gateway contract").
 */
#ifndef MOD_AUTH_JWTK_H
#define MOD_AUTH_JWTK_H

/* Strict C99 (-std=c99) hides PATH_MAX, and APR's apr.h then stops on a #warning: ask for POSIX first. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <strings.h>   /* strcasecmp, strncasecmp: POSIX's header, which strict C99 does not pull in */

#include "httpd.h"
#include "http_config.h"
#include "apr_tables.h"

#include <jwtk.h>

/* The one symbol the module exports (it is built with -fvisibility=hidden). */
extern module AP_MODULE_DECLARE_DATA auth_jwtk_module __attribute__((visibility("default")));

/* One verification policy: what a level's JWTKConfig (a verifier configuration file, the schema of
 * jwtk_verifier_new) or its inline directives say, plus key files (push keys). A level with any of these
 * directives defines its policy as a whole; levels without inherit the enclosing one. */
typedef struct jwtk_ap_policy {
    const char *where;                  /* "<Location /api>" or the like, for messages */
    const char *config_file;            /* JWTKConfig */
    const char *config_text;            /* its contents */
    apr_array_header_t *issuers;        /* const char *, JWTKIssuer */
    apr_array_header_t *audiences;      /* JWTKAudience */
    apr_array_header_t *algorithms;     /* JWTKAlgorithms */
    const char *key_url;                /* JWTKKeyURL */
    const char *oidc_issuer;            /* JWTKOIDC */
    int cache;                          /* JWTKCache; -1 unset */
    apr_array_header_t *key_files;      /* JWTKKeyFile paths */
    apr_array_header_t *key_texts;      /* their contents (read when the directive is parsed) */
    /* Built in post_config. Policies with the same configuration and key files share one verifier. */
    char *json;
    jwtk_keystore *ks;
    jwtk_verifier *v;
    int owner;                          /* 1: this policy created ks and v (and frees them) */
    int pull;                           /* the keystore has a remote key source: start it in child_init */
} jwtk_ap_policy;

/* A claim rendered into a request header or an environment variable. */
typedef struct jwtk_ap_claim_out {
    const char *name;
    const char *pointer;                /* RFC 6901 pointer (a claim name is turned into one) */
} jwtk_ap_claim_out;

typedef struct jwtk_ap_dir {
    jwtk_ap_policy *policy;             /* NULL: inherited */
    const char *realm;                  /* JWTKRealm; NULL: inherited, default "api" */
    const char *user_pointer;           /* JWTKUserClaim; NULL: inherited, default "/sub" */
    apr_array_header_t *headers;        /* jwtk_ap_claim_out, JWTKClaimHeader; NULL: inherited */
    apr_array_header_t *envs;           /* jwtk_ap_claim_out, JWTKClaimEnv; NULL: inherited */
} jwtk_ap_dir;

/* The verdict of a request, kept in the initial request's request_config and found from subrequests
 * and internal redirects, which reuse it rather than verify again. */
typedef struct jwtk_ap_verdict {
    const jwtk_ap_policy *policy;
    int status;                         /* jwtk status of the verification */
    jwtk_ctx *ctx;                      /* leased for the initial request's life: holds the verified claims */
    const char *user;
    int authz_denied;                   /* a Require jwtk-claim line failed for it */
} jwtk_ap_verdict;

/* jwtk_apache_config.c */
extern const command_rec jwtk_ap_commands[];
void *jwtk_ap_create_dir(apr_pool_t *p, char *dir);
void *jwtk_ap_merge_dir(apr_pool_t *p, void *base, void *add);
int jwtk_ap_pre_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp);
int jwtk_ap_post_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp, server_rec *s);
void jwtk_ap_child_init(apr_pool_t *pchild, server_rec *s);
const char *jwtk_ap_pointer(apr_pool_t *p, const char *claim);
const char *jwtk_ap_realm(const jwtk_ap_dir *d);
jwtk_keystore *jwtk_ap_claims_keystore(void);

/* jwtk_apache_claims.c */
void jwtk_ap_ctx_pool_init(apr_pool_t *pchild);
jwtk_ctx *jwtk_ap_ctx_lease(apr_pool_t *p);
void jwtk_ap_strip(request_rec *r, const jwtk_ap_dir *d);
void jwtk_ap_export(request_rec *r, const jwtk_ap_dir *d, jwtk_ctx *ctx);
const char *jwtk_ap_user(request_rec *r, const jwtk_ap_dir *d, jwtk_ctx *ctx);

/* mod_auth_jwtk.c */
jwtk_ap_verdict *jwtk_ap_find_verdict(request_rec *r);
int jwtk_ap_is_ours(request_rec *r);
void jwtk_ap_set_challenge(request_rec *r, const jwtk_ap_dir *d, int status);

/* jwtk_apache_authz.c */
void jwtk_ap_register_authz(apr_pool_t *p);

#endif
