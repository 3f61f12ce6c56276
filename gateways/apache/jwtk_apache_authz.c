/*
 * jwtk_apache_authz.c - the authz provider "jwtk-claim":
 *
 *   Require jwtk-claim <claim> <operator> <value> ...
 *
 * <claim> is a top-level claim name or an RFC 6901 pointer (/realm_access/roles); <operator> is equals
 * (one value), one-of, contains (every value: an array's elements or a space-separated string's words, as
 * scope is) or contains-any. Each line becomes, when the configuration is read, a libjwtk verifier holding
 * just that claim requirement ({"claims": [...]}, the schema of jwtk_verifier_new), and is checked with
 * jwtk_check_claims against the request's one verification: libjwtk compares, the module never does. Lines
 * combine under RequireAll/RequireAny/RequireNone like any other provider's.
 */
#include "mod_auth_jwtk.h"

#include "apr_strings.h"
#include "http_log.h"
#include "http_request.h"
#include "mod_auth.h"

#include <stdio.h>
#include <string.h>

APLOG_USE_MODULE(auth_jwtk);

typedef struct {
    jwtk_verifier *v;
    const char *line;
} parsed_line;

static apr_status_t free_line(void *data)
{
    jwtk_verifier_free(((parsed_line *) data)->v);
    return APR_SUCCESS;
}

/* JSON number grammar (RFC 8259 section 6). */
static int json_number(const char *s)
{
    if (*s == '-') s++;
    if (*s == '0') s++;
    else if (*s >= '1' && *s <= '9') while (*s >= '0' && *s <= '9') s++;
    else return 0;
    if (*s == '.') {
        s++;
        if (!(*s >= '0' && *s <= '9')) return 0;
        while (*s >= '0' && *s <= '9') s++;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-') s++;
        if (!(*s >= '0' && *s <= '9')) return 0;
        while (*s >= '0' && *s <= '9') s++;
    }
    return *s == '\0';
}

/* `w` as a JSON string. */
static char *json_quote(apr_pool_t *p, const char *w)
{
    char *buf = apr_palloc(p, 6 * strlen(w) + 3), *o = buf;
    *o++ = '"';
    for (const unsigned char *c = (const unsigned char *) w; *c; c++) {
        if (*c == '"' || *c == '\\') { *o++ = '\\'; *o++ = (char) *c; }
        else if (*c < 0x20) o += sprintf(o, "\\u%04x", *c);
        else *o++ = (char) *c;
    }
    *o++ = '"';
    *o = '\0';
    return buf;
}

/* A value as JSON, as jwtk verify's --claim-* options and the nginx module's jwtk_claim_* read it: true,
 * false, a JSON number or a "quoted" JSON string stay as written; anything else is a string. */
static char *json_value(apr_pool_t *p, const char *w)
{
    size_t n = strlen(w);
    if (!strcmp(w, "true") || !strcmp(w, "false") || json_number(w) || (n >= 2 && w[0] == '"' && w[n - 1] == '"'))
        return apr_pstrdup(p, w);
    return json_quote(p, w);
}

static const char *parse(cmd_parms *cmd, const char *require_line, const void **parsed)
{
    const char *rest = require_line;
    const char *claim = ap_getword_conf(cmd->temp_pool, &rest);
    const char *op = ap_getword_conf(cmd->temp_pool, &rest);
    if (!*claim || !*op) return "Require jwtk-claim <claim> equals|one-of|contains|contains-any <value> ...";
    const char *member = !strcmp(op, "equals") ? "equals"
                       : !strcmp(op, "one-of") ? "one_of"
                       : !strcmp(op, "contains") ? "contains_all"
                       : !strcmp(op, "contains-any") ? "contains_any" : NULL;
    if (!member)
        return apr_psprintf(cmd->pool, "Require jwtk-claim: unknown operator %s (equals, one-of, contains, "
                                       "contains-any)", op);
    char *values = NULL;
    int n = 0;
    for (const char *w; *(w = ap_getword_conf(cmd->temp_pool, &rest)); n++)
        values = apr_pstrcat(cmd->temp_pool, values ? values : "", values ? "," : "", json_value(cmd->temp_pool, w),
                             NULL);
    if (n == 0) return "Require jwtk-claim: give at least one value";
    if (!strcmp(member, "equals") && n != 1) return "Require jwtk-claim: equals takes one value";
    char *pointer = json_quote(cmd->temp_pool, jwtk_ap_pointer(cmd->temp_pool, claim));
    char *json = apr_pstrcat(cmd->temp_pool, "{\"claims\":[{\"pointer\":", pointer, ",\"", member, "\":",
                             strcmp(member, "equals") ? "[" : "", values, strcmp(member, "equals") ? "]" : "",
                             "}]}", NULL);
    jwtk_keystore *ks = jwtk_ap_claims_keystore();
    if (!ks) return "mod_auth_jwtk: not initialised";
    parsed_line *pl = apr_pcalloc(cmd->pool, sizeof *pl);
    pl->line = apr_pstrdup(cmd->pool, require_line);
    jwtk_ctx *ctx = NULL;
    jwtk_ctx_new(&ctx);
    int st = jwtk_verifier_new_ex(json, strlen(json), ks, ctx, &pl->v);
    const char *err = st == JWTK_OK ? NULL
                    : apr_psprintf(cmd->pool, "Require jwtk-claim %s: %s", require_line, ctx ? jwtk_ctx_errmsg(ctx) : "");
    jwtk_ctx_free(ctx);
    if (err) return err;
    apr_pool_cleanup_register(cmd->pool, pl, free_line, apr_pool_cleanup_null);
    *parsed = pl;
    return NULL;
}

static authz_status check(request_rec *r, const char *require_line, const void *parsed)
{
    (void) require_line;
    const parsed_line *pl = parsed;
    jwtk_ap_verdict *vd = jwtk_ap_find_verdict(r);
    if (!vd || vd->status != JWTK_OK) return r->user ? AUTHZ_DENIED : AUTHZ_DENIED_NO_USER;
    if (!pl || !pl->v) return AUTHZ_GENERAL_ERROR;
    int st = jwtk_check_claims(pl->v, vd->ctx);
    if (st == JWTK_OK) return AUTHZ_GRANTED;
    if (st != JWTK_CLAIM_REQUIREMENT_FAILED) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, "mod_auth_jwtk: Require jwtk-claim %s: %s", pl->line,
                      jwtk_status_name(st));
        return AUTHZ_GENERAL_ERROR;
    }
    vd->authz_denied = 1;
    ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r, "mod_auth_jwtk: user %s: Require jwtk-claim %s: %s", r->user,
                  pl->line, jwtk_ctx_errmsg(vd->ctx));
    return AUTHZ_DENIED;
}

static const authz_provider provider = { check, parse };

void jwtk_ap_register_authz(apr_pool_t *p)
{
    ap_register_auth_provider(p, AUTHZ_PROVIDER_GROUP, "jwtk-claim", AUTHZ_PROVIDER_VERSION, &provider,
                              AP_AUTH_INTERNAL_PER_CONF);
}
