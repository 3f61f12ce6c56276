/*
 * mod_auth_jwtk.c - JWT bearer authentication for Apache httpd 2.4 over libjwtk (docs/APACHE.md).
 *
 *   AuthType Bearer                  (or AuthType jwtk)
 *   JWTKConfig /etc/apache2/jwtk/api.json     or JWTKIssuer/JWTKAudience/JWTKKeyURL/... inline
 *   Require valid-user               and/or Require jwtk-claim scope contains read, in RequireAll/RequireAny
 *
 * The request path: header_parser removes client-sent copies of the configured claim headers (every
 * request of the location, authenticated or not); check_authn (AP_AUTH_INTERNAL_PER_CONF, as Apache's own
 * authentication modules) takes the bearer token with jwtk_bearer_token, verifies it with jwtk_verify and
 * sets r->user from the user claim, or answers libjwtk's status with libjwtk's challenge; the authz provider
 * (jwtk_apache_authz.c) checks Require jwtk-claim lines against the same verification; fixups set the claim
 * headers and variables. A subrequest or an internal redirect finds the initial request's verdict and reuses
 * it when its policy is the same, rather than verifying again. When authorization fails for a verified
 * token, the challenge says insufficient_scope: with `AuthzSendForbiddenOnFailure On` Apache answers 403
 * (RFC 6750 section 3.1), otherwise 401 (Apache's default for an authenticated user).
 */
#include "mod_auth_jwtk.h"

#include "apr_strings.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"

#include <string.h>

int jwtk_ap_is_ours(request_rec *r)
{
    const char *type = ap_auth_type(r);
    return type && (!strcasecmp(type, "Bearer") || !strcasecmp(type, "jwtk"));
}

/* The initial request: subrequests (r->main) and internal redirects (r->prev) lead back to it. */
static request_rec *initial(request_rec *r)
{
    for (;;) {
        if (r->main) r = r->main;
        else if (r->prev) r = r->prev;
        else return r;
    }
}

jwtk_ap_verdict *jwtk_ap_find_verdict(request_rec *r)
{
    return ap_get_module_config(initial(r)->request_config, &auth_jwtk_module);
}

/* WWW-Authenticate for `status` (JWTK_E_NO_TOKEN: no token came), written by jwtk_challenge. */
void jwtk_ap_set_challenge(request_rec *r, const jwtk_ap_dir *d, int status)
{
    const char *realm = jwtk_ap_realm(d);
    size_t len = 0;
    char small[256];
    if (jwtk_challenge(status, realm, strlen(realm), NULL, 0, small, sizeof small, &len) == JWTK_OK) {
        if (len) apr_table_setn(r->err_headers_out, "WWW-Authenticate", apr_pstrmemdup(r->pool, small, len));
        return;
    }
    char *buf = apr_palloc(r->pool, len + 1);
    if (jwtk_challenge(status, realm, strlen(realm), NULL, 0, buf, len, &len) == JWTK_OK && len) {
        buf[len] = '\0';
        apr_table_setn(r->err_headers_out, "WWW-Authenticate", buf);
    }
}

static int deny(request_rec *r, const jwtk_ap_dir *d, int status, const char *why)
{
    int http = status == JWTK_E_NO_TOKEN ? HTTP_UNAUTHORIZED : jwtk_status_http(status);
    jwtk_ap_set_challenge(r, d, status);
    ap_log_rerror(APLOG_MARK, http >= 500 ? APLOG_ERR : APLOG_INFO, 0, r, "mod_auth_jwtk: %d %s%s%s", http,
                  status == JWTK_E_NO_TOKEN ? "no_token" : jwtk_status_name(status), why && *why ? ": " : "",
                  why ? why : "");
    return http;
}

static const jwtk_ap_dir *dir_of(request_rec *r)
{
    return ap_get_module_config(r->per_dir_config, &auth_jwtk_module);
}

static int strip_forged(request_rec *r)
{
    const jwtk_ap_dir *d = dir_of(r);
    if (d && (d->headers || d->envs)) jwtk_ap_strip(r, d);
    return DECLINED;
}

static int authenticate(request_rec *r)
{
    if (!jwtk_ap_is_ours(r)) return DECLINED;
    const jwtk_ap_dir *d = dir_of(r);
    jwtk_ap_strip(r, d);
    const jwtk_ap_policy *pol = d->policy;
    if (!pol || !pol->v) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, "mod_auth_jwtk: AuthType %s without a policy (JWTKConfig, "
                      "JWTKIssuer, JWTKKeyURL, ...) for this location", ap_auth_type(r));
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    request_rec *top = initial(r);
    jwtk_ap_verdict *vd = ap_get_module_config(top->request_config, &auth_jwtk_module);
    if (vd && vd->policy == pol && vd->status == JWTK_OK) {
        r->user = (char *) vd->user;   /* a subrequest or internal redirect: the first verification stands */
        r->ap_auth_type = (char *) ap_auth_type(r);
        ap_log_rerror(APLOG_MARK, APLOG_DEBUG, 0, r, "mod_auth_jwtk: the initial request's verification reused");
        return OK;
    }
    if (!vd) {
        vd = apr_pcalloc(top->pool, sizeof *vd);
        ap_set_module_config(top->request_config, &auth_jwtk_module, vd);
    }
    vd->policy = pol;
    vd->status = JWTK_E_NO_TOKEN;
    vd->user = NULL;
    vd->authz_denied = 0;

    const char *value = apr_table_get(r->headers_in, "Authorization");
    jwtk_str token = {NULL, 0};
    if (!value || jwtk_bearer_token(value, strlen(value), &token) != JWTK_OK || !token.ptr)
        return deny(r, d, JWTK_E_NO_TOKEN, NULL);
    if (!vd->ctx && !(vd->ctx = jwtk_ap_ctx_lease(top->pool))) return deny(r, d, JWTK_E_NULL, "out of memory");
    int st = jwtk_verify(pol->v, vd->ctx, token.ptr, token.len, 0, NULL);
    if (st != JWTK_OK) {
        vd->status = st;
        return deny(r, d, st, jwtk_ctx_errmsg(vd->ctx));
    }
    const char *user = jwtk_ap_user(r, d, vd->ctx);
    if (!user) {
        vd->status = JWTK_MISSING_CLAIM;
        return deny(r, d, JWTK_MISSING_CLAIM, "the user claim (JWTKUserClaim) is absent, empty or not printable");
    }
    vd->status = JWTK_OK;
    vd->user = apr_pstrdup(top->pool, user);
    r->user = (char *) vd->user;
    r->ap_auth_type = (char *) ap_auth_type(r);   /* AUTH_TYPE for CGI, as mod_auth_basic sets it */
    ap_log_rerror(APLOG_MARK, APLOG_DEBUG, 0, r, "mod_auth_jwtk: verified, user %s", vd->user);
    return OK;
}

/* The claims go out in fixups, once authentication and authorization are done, for the request that
 * verified and for every subrequest and internal redirect of it under the same policy (Apache skips
 * check_authn for those when their configuration is the initial request's, and moves an internal
 * redirect's variables to REDIRECT_*). */
static int export_claims(request_rec *r)
{
    if (!jwtk_ap_is_ours(r)) return DECLINED;
    const jwtk_ap_dir *d = dir_of(r);
    if (!d->headers && !d->envs) return DECLINED;
    jwtk_ap_verdict *vd = jwtk_ap_find_verdict(r);
    jwtk_ap_strip(r, d);
    if (vd && vd->status == JWTK_OK && vd->policy == d->policy && r->user) jwtk_ap_export(r, d, vd->ctx);
    return DECLINED;
}

/* Apache answers 401 to an authenticated user whom authorization refused (AuthzSendForbiddenOnFailure Off,
 * the default) and asks the AuthType's module for the challenge. */
static int note_failure(request_rec *r, const char *type)
{
    if (strcasecmp(type, "Bearer") && strcasecmp(type, "jwtk")) return DECLINED;
    jwtk_ap_verdict *vd = jwtk_ap_find_verdict(r);
    jwtk_ap_set_challenge(r, dir_of(r), vd && vd->status == JWTK_OK ? JWTK_CLAIM_REQUIREMENT_FAILED : JWTK_E_NO_TOKEN);
    return OK;
}

/* With AuthzSendForbiddenOnFailure On the refusal is a 403 that no hook names: the challenge is added as
 * the error response is made, when a Require jwtk-claim line refused this request's verified token. */
static void error_challenge(request_rec *r)
{
    if (r->status != HTTP_FORBIDDEN || !jwtk_ap_is_ours(r)) return;
    jwtk_ap_verdict *vd = jwtk_ap_find_verdict(r);
    if (vd && vd->status == JWTK_OK && vd->authz_denied && !apr_table_get(r->err_headers_out, "WWW-Authenticate"))
        jwtk_ap_set_challenge(r, dir_of(r), JWTK_CLAIM_REQUIREMENT_FAILED);
}

static void register_hooks(apr_pool_t *p)
{
    ap_hook_pre_config(jwtk_ap_pre_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_post_config(jwtk_ap_post_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_child_init(jwtk_ap_child_init, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_header_parser(strip_forged, NULL, NULL, APR_HOOK_FIRST);
    ap_hook_check_authn(authenticate, NULL, NULL, APR_HOOK_MIDDLE, AP_AUTH_INTERNAL_PER_CONF);
    ap_hook_fixups(export_claims, NULL, NULL, APR_HOOK_FIRST);
    ap_hook_note_auth_failure(note_failure, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_insert_error_filter(error_challenge, NULL, NULL, APR_HOOK_MIDDLE);
    jwtk_ap_register_authz(p);
}

AP_DECLARE_MODULE(auth_jwtk) = {
    STANDARD20_MODULE_STUFF,
    jwtk_ap_create_dir,
    jwtk_ap_merge_dir,
    NULL,
    NULL,
    jwtk_ap_commands,
    register_hooks,
    AP_MODULE_FLAG_NONE   /* the field Apache 2.4.21 appended, named so strict C99 with -Wextra sees it set */
};
