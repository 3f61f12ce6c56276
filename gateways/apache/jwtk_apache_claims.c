/*
 * jwtk_apache_claims.c - claims out of a verified token (r->user, request headers for mod_proxy upstreams,
 * the subprocess environment for CGI, PHP and SSI), the removal of client-sent copies of those headers,
 * and the jwtk_ctx each request leases.
 *
 * Why a lease and not a ctx per thread: a request's claims must stay in one jwtk_ctx from its check_authn to
 * its last Require line, subrequest and internal redirect, whatever the MPM; the initial request takes one
 * from the child's free list and its pool's cleanup gives it back (no thread-local state, nothing for a
 * thread's exit to run in a module that a restart unloads).
 */
#include "mod_auth_jwtk.h"

#include "apr_lib.h"
#include "apr_strings.h"
#include "apr_thread_mutex.h"
#include "http_log.h"

#include <string.h>

APLOG_USE_MODULE(auth_jwtk);

#define CLAIM_VALUE_MAX 4096
#define FREE_MAX 1024

static apr_thread_mutex_t *lock;
static jwtk_ctx *free_list[FREE_MAX];
static int n_free;

static apr_status_t ctx_pool_destroy(void *data)
{
    (void) data;
    for (int i = 0; i < n_free; i++) jwtk_ctx_free(free_list[i]);
    n_free = 0;
    lock = NULL;
    return APR_SUCCESS;
}

void jwtk_ap_ctx_pool_init(apr_pool_t *pchild)
{
    n_free = 0;
    if (apr_thread_mutex_create(&lock, APR_THREAD_MUTEX_DEFAULT, pchild) != APR_SUCCESS) lock = NULL;
    apr_pool_cleanup_register(pchild, NULL, ctx_pool_destroy, apr_pool_cleanup_null);
}

static apr_status_t ctx_release(void *data)
{
    jwtk_ctx *ctx = data;
    if (lock && apr_thread_mutex_lock(lock) == APR_SUCCESS) {
        if (n_free < FREE_MAX) {
            free_list[n_free++] = ctx;
            ctx = NULL;
        }
        apr_thread_mutex_unlock(lock);
    }
    jwtk_ctx_free(ctx);
    return APR_SUCCESS;
}

/* A ctx for the life of pool `p` (the initial request's); NULL when out of memory. */
jwtk_ctx *jwtk_ap_ctx_lease(apr_pool_t *p)
{
    jwtk_ctx *ctx = NULL;
    if (lock && apr_thread_mutex_lock(lock) == APR_SUCCESS) {
        if (n_free > 0) ctx = free_list[--n_free];
        apr_thread_mutex_unlock(lock);
    }
    if (!ctx && jwtk_ctx_new(&ctx) != JWTK_OK) return NULL;
    apr_pool_cleanup_register(p, ctx, ctx_release, apr_pool_cleanup_null);
    return ctx;
}

/* Header names equal when they differ only in letter case and '_' for '-' (a proxy or CGI may map one to
 * the other: X_Jwt_Sub would reach an upstream as a second X-Jwt-Sub). */
static int lookalike(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = (char) apr_tolower(*a), y = (char) apr_tolower(*b);
        if (x == '_') x = '-';
        if (y == '_') y = '-';
        if (x != y) return 0;
    }
    return *a == *b;
}

static void strip_list(request_rec *r, const apr_array_header_t *list)
{
    if (!list) return;
    const apr_array_header_t *h = apr_table_elts(r->headers_in);
    const apr_table_entry_t *e = (const apr_table_entry_t *) h->elts;
    apr_array_header_t *gone = NULL;
    for (int i = 0; i < h->nelts; i++) {
        if (!e[i].key) continue;
        for (int j = 0; j < list->nelts; j++) {
            const char *name = APR_ARRAY_IDX(list, j, jwtk_ap_claim_out).name;
            if (lookalike(e[i].key, name)) {
                if (!gone) gone = apr_array_make(r->pool, 4, sizeof(const char *));
                APR_ARRAY_PUSH(gone, const char *) = e[i].key;
                break;
            }
        }
    }
    for (int i = 0; gone && i < gone->nelts; i++) apr_table_unset(r->headers_in, APR_ARRAY_IDX(gone, i, const char *));
}

/* Removes every request header that is a configured claim header (JWTKClaimHeader) in any spelling, and
 * those whose CGI name would be a configured environment variable's (JWTKClaimEnv HTTP_X is set from a
 * claim: a client's X header must not be taken for it). */
void jwtk_ap_strip(request_rec *r, const jwtk_ap_dir *d)
{
    strip_list(r, d->headers);
    if (!d->envs) return;
    for (int j = 0; j < d->envs->nelts; j++) {
        const char *name = APR_ARRAY_IDX(d->envs, j, jwtk_ap_claim_out).name;
        if (strncasecmp(name, "HTTP_", 5) || !name[5]) continue;
        jwtk_ap_claim_out one = {name + 5, NULL};
        apr_array_header_t list = {r->pool, sizeof one, 1, 1, (char *) &one};
        strip_list(r, &list);
    }
}

/* The claim at `pointer` as text (strings decoded, arrays of scalars joined with ","), or NULL when it is
 * absent or not fit for a header or a variable (a control character, or longer than 4096 bytes). */
static const char *render(request_rec *r, jwtk_ctx *ctx, const char *pointer)
{
    jwtk_str v = {NULL, 0};
    int type = JWTK_JSON_NONE;
    if (jwtk_claim_at(ctx, pointer, strlen(pointer), JWTK_AT_JOIN, &v, &type) != JWTK_OK || type == JWTK_JSON_NONE)
        return NULL;
    if (v.len > CLAIM_VALUE_MAX) return NULL;
    for (size_t i = 0; i < v.len; i++) {
        unsigned char c = (unsigned char) v.ptr[i];
        if ((c < 0x20 && c != '\t') || c == 0x7F) return NULL;
    }
    return apr_pstrmemdup(r->pool, v.ptr ? v.ptr : "", v.len);
}

void jwtk_ap_export(request_rec *r, const jwtk_ap_dir *d, jwtk_ctx *ctx)
{
    for (int i = 0; d->headers && i < d->headers->nelts; i++) {
        const jwtk_ap_claim_out *o = &APR_ARRAY_IDX(d->headers, i, jwtk_ap_claim_out);
        const char *v = render(r, ctx, o->pointer);
        if (v) apr_table_set(r->headers_in, o->name, v);
    }
    for (int i = 0; d->envs && i < d->envs->nelts; i++) {
        const jwtk_ap_claim_out *o = &APR_ARRAY_IDX(d->envs, i, jwtk_ap_claim_out);
        const char *v = render(r, ctx, o->pointer);
        if (v) apr_table_set(r->subprocess_env, o->name, v);
        else apr_table_unset(r->subprocess_env, o->name);
    }
}

/* The user (JWTKUserClaim, default sub), or NULL when the claim is absent, empty or unfit. */
const char *jwtk_ap_user(request_rec *r, const jwtk_ap_dir *d, jwtk_ctx *ctx)
{
    const char *u = render(r, ctx, d->user_pointer ? d->user_pointer : "/sub");
    return u && *u ? u : NULL;
}
