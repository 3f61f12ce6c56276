/*
 * jwtk_apache_config.c - mod_auth_jwtk's directives, per-directory configuration and its merge, and the
 * policies' verifiers.
 *
 * When verifiers are built: a policy's directives may come on several lines, so each level's policy is
 * collected while the configuration is parsed and built once in post_config (in the parent, before any
 * fork: jwtk_keystore_new and jwtk_verifier_new start no thread and do no I/O), failing the start with
 * the reason from libjwtk. Key refresh (pull mode) starts in child_init, in each child, never in the parent
 * (jwtk.h, PROCESS MODEL AND FORK). A graceful restart clears the parent's configuration pool, which frees
 * its verifiers (the parent never started a thread), and builds new ones; the new children start their
 * refreshers; the old children free theirs (joining the refresher thread) as they exit.
 */
#include "mod_auth_jwtk.h"

#include "apr_file_io.h"
#include "apr_lib.h"
#include "apr_strings.h"
#include "apr_time.h"
#include "http_log.h"
#include "mpm_common.h"

#include <stdio.h>
#include <string.h>

APLOG_USE_MODULE(auth_jwtk);

/* Every policy of the configuration being read (reset in pre_config, for each generation). */
static apr_array_header_t *policies;
/* The keystore of the verifiers behind `Require jwtk-claim` lines: they hold claim requirements only
 * and never verify a token (jwtk_check_claims), so they share one empty keystore. */
static jwtk_keystore *claims_ks;

/* ---------------------------------------------------------------------------------------------
 * Directives.
 */
static jwtk_ap_policy *policy_of(cmd_parms *cmd, jwtk_ap_dir *d)
{
    if (d->policy) return d->policy;
    jwtk_ap_policy *p = apr_pcalloc(cmd->pool, sizeof *p);
    p->where = cmd->path ? apr_psprintf(cmd->pool, "<%s %s>", cmd->directive->parent
                                            ? cmd->directive->parent->directive + 1 : "Directory", cmd->path)
                         : apr_psprintf(cmd->pool, "server %s:%d", cmd->directive->filename,
                                        cmd->directive->line_num);
    p->cache = -1;
    p->issuers = apr_array_make(cmd->pool, 2, sizeof(const char *));
    p->audiences = apr_array_make(cmd->pool, 2, sizeof(const char *));
    p->algorithms = apr_array_make(cmd->pool, 2, sizeof(const char *));
    p->key_files = apr_array_make(cmd->pool, 1, sizeof(const char *));
    p->key_texts = apr_array_make(cmd->pool, 1, sizeof(const char *));
    if (!policies) policies = apr_array_make(cmd->pool, 8, sizeof(jwtk_ap_policy *));
    APR_ARRAY_PUSH(policies, jwtk_ap_policy *) = p;
    d->policy = p;
    return p;
}

static const char *read_file(cmd_parms *cmd, const char *arg, const char **path, const char **text)
{
    *path = ap_server_root_relative(cmd->pool, arg);
    if (!*path) return apr_psprintf(cmd->pool, "%s: invalid path %s", cmd->cmd->name, arg);
    apr_file_t *f;
    apr_finfo_t fi;
    apr_status_t rv = apr_file_open(&f, *path, APR_READ, APR_OS_DEFAULT, cmd->temp_pool);
    if (rv == APR_SUCCESS) rv = apr_file_info_get(&fi, APR_FINFO_SIZE, f);
    if (rv != APR_SUCCESS) return apr_psprintf(cmd->pool, "%s: cannot read %s", cmd->cmd->name, *path);
    if (fi.size <= 0 || fi.size > 16 * 1024 * 1024) {
        apr_file_close(f);
        return apr_psprintf(cmd->pool, "%s: %s is empty or larger than 16 MiB", cmd->cmd->name, *path);
    }
    char *buf = apr_palloc(cmd->pool, (apr_size_t) fi.size + 1);
    apr_size_t n = 0;
    rv = apr_file_read_full(f, buf, (apr_size_t) fi.size, &n);
    apr_file_close(f);
    if (rv != APR_SUCCESS || n != (apr_size_t) fi.size)
        return apr_psprintf(cmd->pool, "%s: cannot read %s", cmd->cmd->name, *path);
    buf[n] = '\0';
    if (memchr(buf, '\0', n)) return apr_psprintf(cmd->pool, "%s: %s holds a NUL byte", cmd->cmd->name, *path);
    *text = buf;
    return NULL;
}

static const char *set_config(cmd_parms *cmd, void *conf, const char *arg)
{
    jwtk_ap_policy *p = policy_of(cmd, conf);
    if (p->config_file) return "JWTKConfig: one per level";
    return read_file(cmd, arg, &p->config_file, &p->config_text);
}

static const char *add_key_file(cmd_parms *cmd, void *conf, const char *arg)
{
    jwtk_ap_policy *p = policy_of(cmd, conf);
    const char *path, *text;
    const char *err = read_file(cmd, arg, &path, &text);
    if (err) return err;
    APR_ARRAY_PUSH(p->key_files, const char *) = path;
    APR_ARRAY_PUSH(p->key_texts, const char *) = text;
    return NULL;
}

static const char *add_word(cmd_parms *cmd, void *conf, const char *arg)
{
    jwtk_ap_policy *p = policy_of(cmd, conf);
    apr_array_header_t *list = cmd->info == (void *) 1 ? p->issuers
                             : cmd->info == (void *) 2 ? p->audiences : p->algorithms;
    APR_ARRAY_PUSH(list, const char *) = arg;
    return NULL;
}

static const char *set_key_url(cmd_parms *cmd, void *conf, const char *arg)
{
    jwtk_ap_policy *p = policy_of(cmd, conf);
    if (p->key_url || p->oidc_issuer) return "one of JWTKKeyURL and JWTKOIDC per level";
    if (cmd->info) p->oidc_issuer = arg; else p->key_url = arg;
    return NULL;
}

static const char *set_cache(cmd_parms *cmd, void *conf, int on)
{
    policy_of(cmd, conf)->cache = on;
    return NULL;
}

static const char *set_realm(cmd_parms *cmd, void *conf, const char *arg)
{
    (void) cmd;
    ((jwtk_ap_dir *) conf)->realm = arg;
    return NULL;
}

/* A claim name or an RFC 6901 pointer ("/realm_access/roles"): a name becomes the pointer to that
 * top-level member ("~" and "/" escaped), so both reach libjwtk's one lookup, jwtk_claim_at. */
const char *jwtk_ap_pointer(apr_pool_t *p, const char *claim)
{
    if (claim[0] == '/') return claim;
    size_t n = strlen(claim);
    char *out = apr_palloc(p, 2 * n + 2), *o = out;
    *o++ = '/';
    for (const char *c = claim; *c; c++) {
        if (*c == '~') { *o++ = '~'; *o++ = '0'; }
        else if (*c == '/') { *o++ = '~'; *o++ = '1'; }
        else *o++ = *c;
    }
    *o = '\0';
    return out;
}

static const char *set_user_claim(cmd_parms *cmd, void *conf, const char *arg)
{
    ((jwtk_ap_dir *) conf)->user_pointer = jwtk_ap_pointer(cmd->pool, arg);
    return NULL;
}

static const char *add_claim_out(cmd_parms *cmd, void *conf, const char *name, const char *claim)
{
    jwtk_ap_dir *d = conf;
    apr_array_header_t **list = cmd->info ? &d->envs : &d->headers;
    for (const char *c = name; *c; c++)
        if (!apr_isalnum(*c) && *c != '-' && *c != '_')
            return apr_psprintf(cmd->pool, "%s: %s: letters, digits, '-' and '_' only", cmd->cmd->name, name);
    if (!*list) *list = apr_array_make(cmd->pool, 4, sizeof(jwtk_ap_claim_out));
    jwtk_ap_claim_out *o = apr_array_push(*list);
    o->name = name;
    o->pointer = jwtk_ap_pointer(cmd->pool, claim);
    return NULL;
}

#define DIR_CONF (RSRC_CONF | ACCESS_CONF)
const command_rec jwtk_ap_commands[] = {
    AP_INIT_TAKE1("JWTKConfig", set_config, NULL, DIR_CONF,
                  "a verifier configuration file (JSON, libjwtk's schema: issuers, audiences, jwks_url, claims, ...)"),
    AP_INIT_ITERATE("JWTKIssuer", add_word, (void *) 1, DIR_CONF, "accepted iss values"),
    AP_INIT_ITERATE("JWTKAudience", add_word, (void *) 2, DIR_CONF, "accepted aud values"),
    AP_INIT_ITERATE("JWTKAlgorithms", add_word, (void *) 3, DIR_CONF, "allowed algorithms"),
    AP_INIT_TAKE1("JWTKKeyURL", set_key_url, NULL, DIR_CONF, "the issuers' JWKS URL (pull mode)"),
    AP_INIT_TAKE1("JWTKOIDC", set_key_url, (void *) 1, DIR_CONF, "an issuer whose keys OpenID Connect discovery finds"),
    AP_INIT_ITERATE("JWTKKeyFile", add_key_file, NULL, DIR_CONF, "key files (JWKS, JWK, PEM), read at start-up"),
    AP_INIT_FLAG("JWTKCache", set_cache, NULL, DIR_CONF, "libjwtk's verified-token cache"),
    AP_INIT_TAKE1("JWTKRealm", set_realm, NULL, DIR_CONF | OR_AUTHCFG, "the realm of the WWW-Authenticate challenge"),
    AP_INIT_TAKE1("JWTKUserClaim", set_user_claim, NULL, DIR_CONF | OR_AUTHCFG,
                  "the claim (name or /pointer) that becomes the user (default sub)"),
    AP_INIT_TAKE2("JWTKClaimHeader", add_claim_out, NULL, DIR_CONF,
                  "a request header set from a claim (client-sent copies removed)"),
    AP_INIT_TAKE2("JWTKClaimEnv", add_claim_out, (void *) 1, DIR_CONF, "an environment variable set from a claim"),
    { .name = NULL }   /* the end of the table; designated, so -Wextra sees no field left out */
};

/* ---------------------------------------------------------------------------------------------
 * Per-directory configuration: realm, user claim and the claim lists merge field by field; the policy
 * comes whole from the nearest level that has one.
 */
void *jwtk_ap_create_dir(apr_pool_t *p, char *dir)
{
    (void) dir;
    return apr_pcalloc(p, sizeof(jwtk_ap_dir));
}

void *jwtk_ap_merge_dir(apr_pool_t *p, void *base_, void *add_)
{
    jwtk_ap_dir *base = base_, *add = add_, *d = apr_palloc(p, sizeof *d);
    d->policy = add->policy ? add->policy : base->policy;
    d->realm = add->realm ? add->realm : base->realm;
    d->user_pointer = add->user_pointer ? add->user_pointer : base->user_pointer;
    d->headers = add->headers ? add->headers : base->headers;
    d->envs = add->envs ? add->envs : base->envs;
    return d;
}

const char *jwtk_ap_realm(const jwtk_ap_dir *d)
{
    return d->realm ? d->realm : "api";
}

/* ---------------------------------------------------------------------------------------------
 * Building the policies (post_config).
 */
static void json_string(apr_pool_t *p, char **out, const char *s)
{
    size_t n = strlen(s);
    char *buf = apr_palloc(p, 6 * n + 3), *o = buf;
    *o++ = '"';
    for (const unsigned char *c = (const unsigned char *) s; *c; c++) {
        if (*c == '"' || *c == '\\') { *o++ = '\\'; *o++ = (char) *c; }
        else if (*c < 0x20) o += sprintf(o, "\\u%04x", *c);
        else *o++ = (char) *c;
    }
    *o++ = '"';
    *o = '\0';
    *out = apr_pstrcat(p, *out, buf, NULL);
}

static void json_list(apr_pool_t *p, char **out, const char *member, apr_array_header_t *list)
{
    if (list->nelts == 0) return;
    *out = apr_pstrcat(p, *out, (*out)[1] ? "," : "", "\"", member, "\":[", NULL);
    for (int i = 0; i < list->nelts; i++) {
        if (i) *out = apr_pstrcat(p, *out, ",", NULL);
        json_string(p, out, APR_ARRAY_IDX(list, i, const char *));
    }
    *out = apr_pstrcat(p, *out, "]", NULL);
}

/* The verifier configuration: the JWTKConfig file as it is, or the inline directives written as the
 * same JSON object (libjwtk checks every member, naming a bad one). */
static const char *policy_json(apr_pool_t *p, jwtk_ap_policy *pol)
{
    int inline_ = pol->issuers->nelts || pol->audiences->nelts || pol->algorithms->nelts || pol->key_url ||
                  pol->oidc_issuer || pol->cache >= 0;
    if (pol->config_text) {
        if (inline_)
            return "JWTKConfig and the inline policy directives (JWTKIssuer, JWTKAudience, JWTKAlgorithms, "
                   "JWTKKeyURL, JWTKOIDC, JWTKCache) exclude each other at one level: put them in the file";
        pol->json = apr_pstrdup(p, pol->config_text);
        return NULL;
    }
    char *j = apr_pstrdup(p, "{");
    if (pol->oidc_issuer) {
        j = apr_pstrcat(p, j, "\"discovery\":true,\"issuers\":[", NULL);
        json_string(p, &j, pol->oidc_issuer);
        j = apr_pstrcat(p, j, "]", NULL);
        if (pol->issuers->nelts) return "JWTKOIDC names the issuer: JWTKIssuer beside it is not needed";
    }
    json_list(p, &j, "issuers", pol->issuers);
    json_list(p, &j, "audiences", pol->audiences);
    json_list(p, &j, "algorithms", pol->algorithms);
    if (pol->key_url) {
        j = apr_pstrcat(p, j, j[1] ? "," : "", "\"jwks_url\":", NULL);
        json_string(p, &j, pol->key_url);
    }
    if (pol->cache >= 0) j = apr_pstrcat(p, j, j[1] ? "," : "", "\"cache\":", pol->cache ? "true" : "false", NULL);
    pol->json = apr_pstrcat(p, j, "}", NULL);
    return NULL;
}

static int same_keys(const jwtk_ap_policy *a, const jwtk_ap_policy *b)
{
    if (a->key_texts->nelts != b->key_texts->nelts) return 0;
    for (int i = 0; i < a->key_texts->nelts; i++)
        if (strcmp(APR_ARRAY_IDX(a->key_texts, i, const char *), APR_ARRAY_IDX(b->key_texts, i, const char *)))
            return 0;
    return 1;
}

static apr_status_t free_policy(void *data)
{
    jwtk_ap_policy *pol = data;
    if (pol->owner) {
        jwtk_verifier_free(pol->v);
        jwtk_keystore_free(pol->ks);
    }
    pol->v = NULL;
    pol->ks = NULL;
    pol->owner = 0;
    return APR_SUCCESS;
}

static apr_status_t free_claims_ks(void *data)
{
    (void) data;
    jwtk_keystore_free(claims_ks);
    claims_ks = NULL;
    return APR_SUCCESS;
}

jwtk_keystore *jwtk_ap_claims_keystore(void)
{
    return claims_ks;
}

int jwtk_ap_pre_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp)
{
    (void) plog;
    (void) ptemp;
    policies = NULL;
    if (jwtk_version_number() != JWTK_VERSION_NUMBER) {
        ap_log_perror(APLOG_MARK, APLOG_EMERG, 0, pconf, "mod_auth_jwtk: built for libjwtk %s, loaded %s",
                      JWTK_VERSION, jwtk_version());
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    if (!claims_ks) {
        if (jwtk_keystore_new(&claims_ks) != JWTK_OK) return HTTP_INTERNAL_SERVER_ERROR;
        apr_pool_cleanup_register(pconf, NULL, free_claims_ks, apr_pool_cleanup_null);
    }
    return OK;
}

static int build(apr_pool_t *pconf, server_rec *s, jwtk_ap_policy *pol, jwtk_ctx *ctx)
{
    const char *err = policy_json(pconf, pol);
    if (err) {
        ap_log_error(APLOG_MARK, APLOG_EMERG, 0, s, "mod_auth_jwtk: %s: %s", pol->where, err);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    /* A policy like one already built shares its verifier (and so its keystore and refresher). */
    for (int i = 0; i < policies->nelts; i++) {
        jwtk_ap_policy *o = APR_ARRAY_IDX(policies, i, jwtk_ap_policy *);
        if (o == pol) break;
        if (o->v && !strcmp(o->json, pol->json) && same_keys(o, pol)) {
            pol->v = o->v;
            pol->ks = o->ks;
            return OK;
        }
    }
    if (jwtk_keystore_new(&pol->ks) != JWTK_OK) return HTTP_INTERNAL_SERVER_ERROR;
    int st = jwtk_verifier_new_ex(pol->json, strlen(pol->json), pol->ks, ctx, &pol->v);
    if (st != JWTK_OK) {
        ap_log_error(APLOG_MARK, APLOG_EMERG, 0, s, "mod_auth_jwtk: %s%s%s: verifier configuration: %s: %s",
                     pol->where, pol->config_file ? " " : "", pol->config_file ? pol->config_file : "",
                     jwtk_status_name(st), jwtk_ctx_errmsg(ctx));
        jwtk_keystore_free(pol->ks);
        pol->ks = NULL;
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    pol->owner = 1;
    apr_pool_cleanup_register(pconf, pol, free_policy, apr_pool_cleanup_null);
    if (pol->key_texts->nelts) {
        jwtk_str *docs = apr_palloc(pconf, sizeof(jwtk_str) * (size_t) pol->key_texts->nelts);
        for (int i = 0; i < pol->key_texts->nelts; i++) {
            docs[i].ptr = APR_ARRAY_IDX(pol->key_texts, i, const char *);
            docs[i].len = strlen(docs[i].ptr);
        }
        st = jwtk_keystore_load_jwks_many(pol->ks, NULL, 0, docs, (size_t) pol->key_texts->nelts, ctx);
        if (st != JWTK_OK) {
            ap_log_error(APLOG_MARK, APLOG_EMERG, 0, s, "mod_auth_jwtk: %s: JWTKKeyFile: %s: %s", pol->where,
                         jwtk_status_name(st), jwtk_ctx_errmsg(ctx));
            return HTTP_INTERNAL_SERVER_ERROR;
        }
        if (*jwtk_ctx_errmsg(ctx))
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s, "mod_auth_jwtk: %s: JWTKKeyFile: %s", pol->where,
                         jwtk_ctx_errmsg(ctx));
    }
    jwtk_stats stats;
    memset(&stats, 0, sizeof stats);
    stats.struct_size = sizeof stats;
    pol->pull = jwtk_stats_get(pol->v, &stats) == JWTK_OK && stats.remote_sources > 0;
    return OK;
}

int jwtk_ap_post_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp, server_rec *s)
{
    (void) plog;
    (void) ptemp;
    if (!policies) return OK;
    jwtk_ctx *ctx = NULL;
    if (jwtk_ctx_new(&ctx) != JWTK_OK) return HTTP_INTERNAL_SERVER_ERROR;
    int rc = OK;
    for (int i = 0; i < policies->nelts && rc == OK; i++)
        rc = build(pconf, s, APR_ARRAY_IDX(policies, i, jwtk_ap_policy *), ctx);
    jwtk_ctx_free(ctx);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * In each child: the refreshers start, and stop (joined) as the child exits.
 */
static apr_status_t child_exit(void *data)
{
    (void) data;
    if (!policies) return APR_SUCCESS;
    for (int i = 0; i < policies->nelts; i++) free_policy(APR_ARRAY_IDX(policies, i, jwtk_ap_policy *));
    return APR_SUCCESS;
}

void jwtk_ap_child_init(apr_pool_t *pchild, server_rec *s)
{
    jwtk_ap_ctx_pool_init(pchild);
    if (!policies) return;
    int waiting = 0;
    for (int i = 0; i < policies->nelts; i++) {
        jwtk_ap_policy *pol = APR_ARRAY_IDX(policies, i, jwtk_ap_policy *);
        if (!pol->owner || !pol->pull) continue;
        int st = jwtk_keystore_start(pol->ks);
        if (st != JWTK_OK)
            ap_log_error(APLOG_MARK, APLOG_ERR, 0, s, "mod_auth_jwtk: %s: jwtk_keystore_start: %s", pol->where,
                         jwtk_status_name(st));
        else waiting = 1;
    }
    apr_pool_cleanup_register(pchild, NULL, child_exit, apr_pool_cleanup_null);
    /* A new child waits up to 2 s for its key URLs' first answers, so that a start or a graceful restart
     * does not answer 503 meanwhile (a key URL that is down costs each new child those 2 s, once). */
    for (int tries = 0; waiting && tries < 200; tries++) {
        waiting = 0;
        for (int i = 0; i < policies->nelts && !waiting; i++) {
            jwtk_ap_policy *pol = APR_ARRAY_IDX(policies, i, jwtk_ap_policy *);
            if (!pol->owner || !pol->pull) continue;
            jwtk_stats st;
            memset(&st, 0, sizeof st);
            st.struct_size = sizeof st;
            if (jwtk_stats_get(pol->v, &st) == JWTK_OK && st.remote_sources_without_keys > 0 &&
                st.jwks_fetch_failures + st.discovery_fetch_failures == 0)
                waiting = 1;
        }
        if (waiting) apr_sleep(apr_time_from_msec(10));
    }
}
