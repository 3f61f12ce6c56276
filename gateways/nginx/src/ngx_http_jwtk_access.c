/*
 * The access-phase handler: token -> key sources if due -> jwtk_verify ->
 * claims copied for the variables -> auth_jwt_require.
 *
 * Answers (RFC 6750, as jwtk.lua does; NGINX Plus documents no challenge):
 * a missing token is 401 with `WWW-Authenticate: Bearer realm="..."`; a
 * rejected token is jwtk_status_http's status (401; 403 for an unmet
 * jwtk_claim_*; 503 while a key URL has given no keys) with
 * `, error="invalid_token"`; an auth_jwt_require failure is its error=
 * status (401 invalid_token, 403 insufficient_scope); a key source that
 * cannot be loaded is 500. Nothing of the token is echoed: the reason goes
 * to the error log at info level.
 */
#include "ngx_http_jwtk_module.h"


/*
 * The WWW-Authenticate value for a jwtk status (JWTK_E_NO_TOKEN: no token
 * came): libjwtk's jwtk_challenge, the one every front end answers with
 * (the realm quoted, the error by the status).
 */
static ngx_int_t
ngx_http_jwtk_challenge(ngx_http_request_t *r, ngx_str_t *realm, int status)
{
    ngx_table_elt_t  *h;
    size_t            len;
    u_char           *p;

    if (jwtk_challenge(status, (const char *) realm->data, realm->len, NULL, 0,
                       NULL, 0, &len)
        != JWTK_E_LENGTH)
    {
        return NGX_OK;                  /* no challenge for this status */
    }

    p = ngx_pnalloc(r->pool, len);
    h = ngx_list_push(&r->headers_out.headers);
    if (p == NULL || h == NULL) {
        return NGX_ERROR;
    }

    if (jwtk_challenge(status, (const char *) realm->data, realm->len, NULL, 0,
                       (char *) p, len, &len)
        != JWTK_OK)
    {
        return NGX_ERROR;
    }

    h->hash = 1;
#if (nginx_version >= 1023000)
    h->next = NULL;
#endif
    ngx_str_set(&h->key, "WWW-Authenticate");
    h->value.data = p;
    h->value.len = len;
    r->headers_out.www_authenticate = h;

    return NGX_OK;
}


static ngx_int_t
ngx_http_jwtk_deny(ngx_http_request_t *r, ngx_http_jwtk_loc_conf_t *jcf,
    ngx_int_t http, int status)
{
    ngx_str_t  realm;

    if (http == NGX_HTTP_UNAUTHORIZED || http == NGX_HTTP_FORBIDDEN) {
        if (ngx_http_complex_value(r, jcf->realm, &realm) != NGX_OK
            || ngx_http_jwtk_challenge(r, &realm, status) != NGX_OK)
        {
            return NGX_HTTP_INTERNAL_SERVER_ERROR;
        }
    }

    return http;
}


/* The verifier for this request: its key set's (key sources with
 * variables), or the location's. */
static jwtk_verifier *
ngx_http_jwtk_verifier(ngx_http_jwtk_loc_conf_t *jcf, ngx_http_jwtk_ctx_t *ctx)
{
    return ctx->set != NULL ? ctx->set->verifier : jcf->policy->verifier;
}


/*
 * Verifies the token; for an encrypted token (auth_jwt_type encrypted) its
 * decrypted claims, for a nested one the enclosed JWS (jwtk_nested_jws),
 * are copied for $jwt_payload at once (libjwtk's results live until the
 * worker's next verification), as NGINX Plus defines $jwt_payload.
 */
static int
ngx_http_jwtk_verify(ngx_http_request_t *r, ngx_http_jwtk_loc_conf_t *jcf,
    ngx_http_jwtk_ctx_t *ctx, jwtk_ctx *jctx, ngx_str_t *token)
{
    jwtk_claims  claims, *out;
    jwtk_str     inner;
    int          st;

    out = NULL;

    if (jcf->type == NGX_HTTP_JWTK_TYPE_ENCRYPTED) {
        claims.struct_size = sizeof(jwtk_claims);
        out = &claims;
    }

    st = jwtk_verify(ngx_http_jwtk_verifier(jcf, ctx), jctx,
                     (const char *) token->data, token->len, 0, out);

    if (st == JWTK_OK && out != NULL && claims.claims_json.ptr != NULL
        && ngx_http_jwtk_copy_payload(r, ctx, &claims.claims_json) != NGX_OK)
    {
        return JWTK_E_NULL;
    }

    if (st == JWTK_OK && jcf->type == NGX_HTTP_JWTK_TYPE_NESTED
        && jwtk_nested_jws(jctx, &inner) == JWTK_OK && inner.ptr != NULL
        && ngx_http_jwtk_copy_payload(r, ctx, &inner) != NGX_OK)
    {
        return JWTK_E_NULL;
    }

    return st;
}


/* The Authorization header's bearer token: libjwtk's one grammar. */
static ngx_int_t
ngx_http_jwtk_bearer(ngx_table_elt_t *h, ngx_str_t *token)
{
    jwtk_str  t;

    if (h == NULL
        || jwtk_bearer_token((const char *) h->value.data, h->value.len, &t)
           != JWTK_OK
        || t.len == 0)
    {
        return NGX_DECLINED;
    }

    token->data = (u_char *) t.ptr;
    token->len = t.len;

    return NGX_OK;
}


/* Plus's rule: every value non-empty and not "0". */
static ngx_int_t
ngx_http_jwtk_check_requires(ngx_http_request_t *r,
    ngx_http_jwtk_loc_conf_t *jcf)
{
    ngx_http_jwtk_require_t   *req;
    ngx_http_complex_value_t  *cv;
    ngx_uint_t                 i, k;
    ngx_str_t                  v;

    if (jcf->requires == NULL) {
        return NGX_OK;
    }

    req = jcf->requires->elts;

    for (i = 0; i < jcf->requires->nelts; i++) {
        cv = req[i].values->elts;

        for (k = 0; k < req[i].values->nelts; k++) {
            if (ngx_http_complex_value(r, &cv[k], &v) != NGX_OK) {
                return NGX_HTTP_INTERNAL_SERVER_ERROR;
            }

            ngx_log_debug2(NGX_LOG_DEBUG_HTTP, r->connection->log, 0,
                           "jwtk: auth_jwt_require %V: %uz bytes",
                           &cv[k].value, v.len);

            if (v.len == 0 || (v.len == 1 && v.data[0] == '0')) {
                ngx_log_error(NGX_LOG_INFO, r->connection->log, 0,
                              "jwtk: auth_jwt_require value %V is empty or "
                              "\"0\": %ui", &cv[k].value, req[i].error);
                return req[i].error;
            }
        }
    }

    return NGX_OK;
}


ngx_int_t
ngx_http_jwtk_access_handler(ngx_http_request_t *r)
{
    ngx_http_jwtk_loc_conf_t   *jcf;
    ngx_http_jwtk_main_conf_t  *mcf;
    ngx_http_jwtk_ctx_t        *ctx;
    ngx_str_t                   token;
    jwtk_ctx                   *jctx;
    ngx_int_t                   rc, http;
    int                         st;

    jcf = ngx_http_get_module_loc_conf(r, ngx_http_jwtk_module);

    if (!jcf->enabled) {
        return NGX_DECLINED;
    }

    if (jcf->policy == NULL) {
        /* A server level's auth_jwt whose key sources are all in
         * locations */
        ngx_log_error(NGX_LOG_ERR, r->connection->log, 0,
                      "jwtk: auth_jwt without a key source at the level "
                      "that answers \"%V\" (no location took it): 500",
                      &r->uri);
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    mcf = ngx_http_get_module_main_conf(r, ngx_http_jwtk_module);

    ctx = ngx_http_get_module_ctx(r, ngx_http_jwtk_module);

    if (ctx == NULL) {
        ctx = ngx_pcalloc(r->pool, sizeof(ngx_http_jwtk_ctx_t));
        if (ctx == NULL) {
            return NGX_ERROR;
        }

        ctx->status = -1;
        ngx_http_set_ctx(r, ctx, ngx_http_jwtk_module);

    } else if (ctx->done) {
        /* Run again (satisfy any with another module's NGX_AGAIN, an
         * internal redirect): verified already. */
        ngx_log_debug1(NGX_LOG_DEBUG_HTTP, r->connection->log, 0,
                       "jwtk: done before: %i", ctx->answer);
        return ctx->answer;
    }

    if (jcf->token != NULL) {
        if (ngx_http_complex_value(r, jcf->token, &token) != NGX_OK) {
            return NGX_HTTP_INTERNAL_SERVER_ERROR;
        }

    } else if (ngx_http_jwtk_bearer(r->headers_in.authorization, &token)
               != NGX_OK)
    {
        token.len = 0;
    }

    ngx_log_debug1(NGX_LOG_DEBUG_HTTP, r->connection->log, 0,
                   "jwtk: token of %uz bytes", token.len);

    if (token.len == 0) {
        ngx_http_jwtk_count(jcf->policy, NGX_HTTP_JWTK_COUNT_MISSING);
        ctx->done = 1;
        ctx->answer = ngx_http_jwtk_deny(r, jcf, NGX_HTTP_UNAUTHORIZED,
                                         JWTK_E_NO_TOKEN);
        return ctx->answer;
    }

    rc = ngx_http_jwtk_fetch_keys(r, jcf->policy, ctx);

    if (rc == NGX_AGAIN) {
        ngx_log_debug0(NGX_LOG_DEBUG_HTTP, r->connection->log, 0,
                       "jwtk: waiting for a key subrequest");
        return NGX_AGAIN;
    }

    if (rc == NGX_OK) {
        /* keys of the kinds this location's tokens need */
        rc = ngx_http_jwtk_check_kinds(r, jcf->policy, ctx);
    }

    if (rc != NGX_OK) {
        ngx_http_jwtk_count(jcf->policy, NGX_HTTP_JWTK_COUNT_KEYS);
        ctx->done = 1;
        ctx->answer = NGX_HTTP_INTERNAL_SERVER_ERROR;
        return ctx->answer;
    }

    jctx = ngx_http_jwtk_worker_ctx();
    if (jctx == NULL) {
        ngx_log_error(NGX_LOG_ERR, r->connection->log, 0,
                      "jwtk: no jwtk_ctx in this process");
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    st = ngx_http_jwtk_verify(r, jcf, ctx, jctx, &token);

    if (st == JWTK_UNKNOWN_KID && !ctx->refetch
        && ngx_http_jwtk_refetch_for_kid(jcf->policy, ctx))
    {
        /* The subrequests run, then this handler again from the top,
         * verifying with what they brought. */
        ngx_log_debug0(NGX_LOG_DEBUG_HTTP, r->connection->log, 0,
                       "jwtk: unknown kid: fetching the keys again");

        ctx->refetch = 1;
        ctx->next_request = 0;

        rc = ngx_http_jwtk_fetch_keys(r, jcf->policy, ctx);
        if (rc == NGX_AGAIN) {
            return NGX_AGAIN;
        }

        if (rc == NGX_OK) {
            st = ngx_http_jwtk_verify(r, jcf, ctx, jctx, &token);
        }
    }

    ngx_log_debug2(NGX_LOG_DEBUG_HTTP, r->connection->log, 0,
                   "jwtk: verified: %d %s", st, jwtk_status_name(st));

    ctx->status = st;
    ctx->done = 1;

    if (st != JWTK_OK) {
        http = jwtk_status_http(st);
        ngx_log_error(NGX_LOG_INFO, r->connection->log, 0,
                      "jwtk: %i %s: %s", http, jwtk_status_name(st),
                      jwtk_ctx_errmsg(jctx));
        ctx->answer = ngx_http_jwtk_deny(r, jcf, http, st);
        return ctx->answer;
    }

    /* Variables may be read after this worker has verified other tokens
     * (the log phase): copy now. */
    if (ngx_http_jwtk_copy_values(r, mcf, ctx, jctx) != NGX_OK) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    http = ngx_http_jwtk_check_requires(r, jcf);

    ngx_log_debug1(NGX_LOG_DEBUG_HTTP, r->connection->log, 0,
                   "jwtk: auth_jwt_require: %i", http);

    if (http != NGX_OK) {
        ngx_http_jwtk_count(jcf->policy, NGX_HTTP_JWTK_COUNT_REQUIRE);

        /* Plus's auth_jwt_require: 403 is insufficient_scope, 401
         * invalid_token. */
        ctx->answer = ngx_http_jwtk_deny(r, jcf, http,
                                         http == NGX_HTTP_FORBIDDEN
                                         ? JWTK_CLAIM_REQUIREMENT_FAILED
                                         : JWTK_MISSING_CLAIM);
        return ctx->answer;
    }

    ctx->answer = NGX_OK;

    return NGX_OK;
}
