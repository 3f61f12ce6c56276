/*
 * Key sources. One group per configuration level that names any (inherited whole otherwise), feeding
 * one jwtk_keystore:
 *   auth_jwt_key_file     read and loaded at configuration (so `nginx -t` and a reload check them; a
 *                         reload that cannot load them keeps the running configuration);
 *   auth_jwt_key_request  a subrequest from the access phase when the worker's copy is older than
 *                         auth_jwt_key_cache (0, Plus's default: every request), its body taken by this
 *                         file's body filter (up to 16 MiB, never sent to the client); the answer is
 *                         loaded only when its bytes changed, so a repeated document is never parsed again;
 *   jwtk_key_url          libjwtk's own refresher thread (pull mode, jwtk_keystore_start), started in
 *                         each worker after fork: refresh ahead of max-age with ETags, one fetch per
 *                         cooldown on an unknown kid, stale keys while the endpoint fails.
 * Files and subrequest answers are published together (jwtk_keystore_load_jwks_many) as the keys of
 * any issuer: a document that is not a key set keeps the old keys.
 */
#include "ngx_http_jwtk_module.h"

#define NGX_HTTP_JWTK_MAX_KEY_FILE (16 << 20)   /* jwtk.h's key set limit */

static ngx_int_t ngx_http_jwtk_key_request_done(ngx_http_request_t *sr, void *data, ngx_int_t rc);
static void ngx_http_jwtk_free_capture(void *data);
static void ngx_http_jwtk_wait_for_keys(ngx_cycle_t *cycle, ngx_http_jwtk_main_conf_t *mcf);
static void ngx_http_jwtk_free_keystore(void *data);
static void ngx_http_jwtk_free_bodies(void *data);


/* auth_jwt_key_file PATH: the path, and where the directive is, since the
 * file is read only when the locations are merged. */
char *
ngx_http_jwtk_key_file(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_jwtk_loc_conf_t  *jcf = conf;
    ngx_str_t                 *value = cf->args->elts;
    ngx_http_jwtk_key_file_t  *kf;

    (void) cmd;

    if (jcf->key_files == NGX_CONF_UNSET_PTR) {
        jcf->key_files = ngx_array_create(cf->pool, 2,
                                          sizeof(ngx_http_jwtk_key_file_t));
        if (jcf->key_files == NULL) {
            return NGX_CONF_ERROR;
        }
    }

    kf = ngx_array_push(jcf->key_files);
    if (kf == NULL) {
        return NGX_CONF_ERROR;
    }

    kf->name = value[1];

    if (ngx_http_jwtk_place_here(cf, &kf->place) != NGX_OK) {
        return NGX_CONF_ERROR;
    }

    return NGX_CONF_OK;
}


static char *
ngx_http_jwtk_read_key_file(ngx_conf_t *cf, ngx_http_jwtk_key_file_t *kf,
    ngx_str_t *out)
{
    ngx_fd_t          fd;
    ngx_str_t        *name = &kf->name;
    ngx_file_info_t   fi;
    off_t             size;
    ssize_t           n;

    if (ngx_strlchr(name->data, name->data + name->len, '$') != NULL) {
        ngx_http_jwtk_place_error(NGX_LOG_EMERG, cf, &kf->place, 0,
                                  "auth_jwt_key_file \"%V\": variables in "
                                  "key file names are not supported (the "
                                  "files are read once, at configuration)",
                                  name);
        return NGX_CONF_ERROR;
    }
    if (ngx_conf_full_name(cf->cycle, name, 1) != NGX_OK) {
        return NGX_CONF_ERROR;
    }
    fd = ngx_open_file(name->data, NGX_FILE_RDONLY, NGX_FILE_OPEN, 0);
    if (fd == NGX_INVALID_FILE) {
        ngx_http_jwtk_place_error(NGX_LOG_EMERG, cf, &kf->place, ngx_errno,
                                  "auth_jwt_key_file: cannot open \"%V\"",
                                  name);
        return NGX_CONF_ERROR;
    }
    if (ngx_fd_info(fd, &fi) == NGX_FILE_ERROR) {
        ngx_http_jwtk_place_error(NGX_LOG_EMERG, cf, &kf->place, ngx_errno,
                                  "auth_jwt_key_file: cannot stat \"%V\"",
                                  name);
        ngx_close_file(fd);
        return NGX_CONF_ERROR;
    }
    size = ngx_file_size(&fi);
    if (!ngx_is_file(&fi) || size <= 0 || size > NGX_HTTP_JWTK_MAX_KEY_FILE) {
        ngx_http_jwtk_place_error(NGX_LOG_EMERG, cf, &kf->place, 0,
                                  "auth_jwt_key_file \"%V\": not a regular "
                                  "file of 1 byte to 16 MiB", name);
        ngx_close_file(fd);
        return NGX_CONF_ERROR;
    }
    out->data = ngx_pnalloc(cf->pool, size);
    if (out->data == NULL) {
        ngx_close_file(fd);
        return NGX_CONF_ERROR;
    }
    n = ngx_read_fd(fd, out->data, size);
    ngx_close_file(fd);
    if (n != size) {
        ngx_http_jwtk_place_error(NGX_LOG_EMERG, cf, &kf->place, ngx_errno,
                                  "auth_jwt_key_file: cannot read \"%V\"",
                                  name);
        return NGX_CONF_ERROR;
    }
    out->len = size;
    return NGX_CONF_OK;
}


/*
 * The key files of one level were refused together: name the one at fault
 * at its own directive. Each is loaded alone into a scratch keystore, the
 * first refused is named; when each loads alone (a kid naming different
 * keys in two files), the error is reported at the first file's directive.
 * Only on failure, so a good configuration parses its files once.
 */
static void
ngx_http_jwtk_key_files_refused(ngx_conf_t *cf, ngx_array_t *key_files,
    ngx_array_t *files, jwtk_ctx *ctx, int st)
{
    ngx_str_t                 together, *file = files->elts;
    ngx_uint_t                i;
    jwtk_keystore            *scratch;
    ngx_http_jwtk_key_file_t *kf = key_files->elts;
    int                       one;

    together.data = (u_char *) jwtk_ctx_errmsg(ctx);
    together.len = ngx_strlen(together.data);
    together.data = ngx_pstrdup(cf->pool, &together);
    if (together.data == NULL) {
        return;
    }

    for (i = 0; files->nelts > 1 && i < files->nelts; i++) {
        if (jwtk_keystore_new(&scratch) != JWTK_OK) {
            break;
        }
        one = jwtk_keystore_load_jwks_ex(scratch, NULL, 0,
                                         (const char *) file[i].data,
                                         file[i].len, ctx);
        jwtk_keystore_free(scratch);

        if (one != JWTK_OK) {
            ngx_http_jwtk_place_error(NGX_LOG_EMERG, cf, &kf[i].place, 0,
                                      "auth_jwt_key_file \"%V\": %s (%s)",
                                      &kf[i].name, jwtk_ctx_errmsg(ctx),
                                      jwtk_status_name(one));
            return;
        }
    }

    if (files->nelts == 1) {
        ngx_http_jwtk_place_error(NGX_LOG_EMERG, cf, &kf[0].place, 0,
                                  "auth_jwt_key_file \"%V\": %V (%s)",
                                  &kf[0].name, &together,
                                  jwtk_status_name(st));
        return;
    }

    ngx_http_jwtk_place_error(NGX_LOG_EMERG, cf, &kf[0].place, 0,
                              "auth_jwt_key_file \"%V\" and the %ui other "
                              "key files of this level: %V (%s)",
                              &kf[0].name, files->nelts - 1, &together,
                              jwtk_status_name(st));
}


static void
ngx_http_jwtk_free_keystore(void *data)
{
    jwtk_keystore_free(data);
}


/* The worker's copies of the key subrequests' answers (ngx_alloc'ed), freed with the cycle. */
static void
ngx_http_jwtk_free_bodies(void *data)
{
    ngx_array_t                  *requests = data;
    ngx_http_jwtk_key_request_t  *kr = requests->elts;
    ngx_uint_t                    i;

    for (i = 0; i < requests->nelts; i++) {
        if (kr[i].body != NULL) {
            ngx_free(kr[i].body);
            kr[i].body = NULL;
        }
    }
}


/* Publishes the files and every subrequest answer held as the keystore's any-issuer keys. */
static int
ngx_http_jwtk_publish(ngx_pool_t *pool, ngx_http_jwtk_keys_t *keys, jwtk_ctx *ctx)
{
    ngx_uint_t                    i, n = 0, total;
    ngx_str_t                    *file;
    ngx_http_jwtk_key_request_t  *kr;
    jwtk_str                     *docs;

    total = (keys->files ? keys->files->nelts : 0) + (keys->requests ? keys->requests->nelts : 0);
    if (total == 0) {
        return JWTK_OK;
    }
    docs = ngx_palloc(pool, total * sizeof(jwtk_str));
    if (docs == NULL) {
        return JWTK_E_NULL;
    }
    if (keys->files) {
        file = keys->files->elts;
        for (i = 0; i < keys->files->nelts; i++, n++) {
            docs[n].ptr = (const char *) file[i].data;
            docs[n].len = file[i].len;
        }
    }
    if (keys->requests) {
        kr = keys->requests->elts;
        for (i = 0; i < keys->requests->nelts; i++) {
            if (kr[i].body != NULL) {
                docs[n].ptr = (const char *) kr[i].body;
                docs[n].len = kr[i].len;
                n++;
            }
        }
    }
    if (n == 0) {
        return JWTK_OK;
    }
    return jwtk_keystore_load_jwks_many(keys->keystore, NULL, 0, docs, n, ctx);
}


char *
ngx_http_jwtk_build_keys(ngx_conf_t *cf, ngx_http_jwtk_loc_conf_t *conf)
{
    ngx_http_jwtk_main_conf_t    *mcf;
    ngx_http_core_loc_conf_t     *clcf;
    ngx_http_jwtk_keys_t         *keys, **slot;
    ngx_http_jwtk_key_request_t  *kr;
    ngx_pool_cleanup_t           *cln;
    ngx_http_jwtk_key_file_t     *kf;
    ngx_str_t                    *file, *uri;
    ngx_uint_t                    i;
    jwtk_ctx                     *ctx;
    int                           st;

    keys = ngx_pcalloc(cf->pool, sizeof(ngx_http_jwtk_keys_t));
    cln = ngx_pool_cleanup_add(cf->pool, 0);
    ctx = ngx_http_jwtk_worker_ctx();
    if (keys == NULL || cln == NULL || ctx == NULL || jwtk_keystore_new(&keys->keystore) != JWTK_OK) {
        return NGX_CONF_ERROR;
    }
    cln->handler = ngx_http_jwtk_free_keystore;
    cln->data = keys->keystore;
    keys->url = conf->key_url;
    clcf = ngx_http_conf_get_module_loc_conf(cf, ngx_http_core_module);
    if (clcf->name.len != 0) {
        keys->label = clcf->name;
    } else {
        ngx_str_set(&keys->label, "server");
    }

    if (conf->key_files != NGX_CONF_UNSET_PTR && conf->key_files != NULL) {
        keys->files = ngx_array_create(cf->pool, conf->key_files->nelts, sizeof(ngx_str_t));
        if (keys->files == NULL) {
            return NGX_CONF_ERROR;
        }
        kf = conf->key_files->elts;
        for (i = 0; i < conf->key_files->nelts; i++) {
            file = ngx_array_push(keys->files);
            if (file == NULL
                || ngx_http_jwtk_read_key_file(cf, &kf[i], file)
                   != NGX_CONF_OK)
            {
                return NGX_CONF_ERROR;
            }
        }
        st = ngx_http_jwtk_publish(cf->pool, keys, ctx);
        if (st != JWTK_OK) {
            ngx_http_jwtk_key_files_refused(cf, conf->key_files, keys->files,
                                            ctx, st);
            return NGX_CONF_ERROR;
        }
        if (jwtk_ctx_errmsg(ctx)[0] != '\0') {
            ngx_http_jwtk_place_error(NGX_LOG_WARN, cf, &kf[0].place, 0,
                                      "auth_jwt_key_file \"%V\"%s: some keys "
                                      "were skipped: %s", &kf[0].name,
                                      conf->key_files->nelts > 1
                                      ? " (and this level's other key files)"
                                      : "", jwtk_ctx_errmsg(ctx));
        }
    }

    if (conf->key_requests != NGX_CONF_UNSET_PTR && conf->key_requests != NULL) {
        keys->requests = ngx_array_create(cf->pool, conf->key_requests->nelts,
                                          sizeof(ngx_http_jwtk_key_request_t));
        cln = ngx_pool_cleanup_add(cf->pool, 0);
        if (keys->requests == NULL || cln == NULL) {
            return NGX_CONF_ERROR;
        }
        cln->handler = ngx_http_jwtk_free_bodies;
        cln->data = keys->requests;
        uri = conf->key_requests->elts;
        for (i = 0; i < conf->key_requests->nelts; i++) {
            if (uri[i].len == 0 || uri[i].data[0] != '/'
                || ngx_strlchr(uri[i].data, uri[i].data + uri[i].len, '$') != NULL)
            {
                ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                                   "auth_jwt_key_request \"%V\": a local URI without variables is required",
                                   &uri[i]);
                return NGX_CONF_ERROR;
            }
            kr = ngx_array_push(keys->requests);
            if (kr == NULL) {
                return NGX_CONF_ERROR;
            }
            ngx_memzero(kr, sizeof(*kr));
            kr->uri = uri[i];
        }
    }

    mcf = ngx_http_conf_get_module_main_conf(cf, ngx_http_jwtk_module);
    slot = ngx_array_push(&mcf->keysets);
    if (slot == NULL) {
        return NGX_CONF_ERROR;
    }
    *slot = keys;
    conf->keys = keys;
    return NGX_CONF_OK;
}


/* Pull mode: libjwtk's refresher thread, one per keystore, in this worker (after fork). */
ngx_int_t
ngx_http_jwtk_start_keys(ngx_cycle_t *cycle, ngx_http_jwtk_main_conf_t *mcf)
{
    ngx_http_jwtk_keys_t **keys = mcf->keysets.elts;
    ngx_uint_t             i;
    int                    st;

    for (i = 0; i < mcf->keysets.nelts; i++) {
        if (!keys[i]->pull) {
            continue;
        }
        st = jwtk_keystore_start(keys[i]->keystore);
        if (st != JWTK_OK) {
            ngx_log_error(NGX_LOG_EMERG, cycle->log, 0, "jwtk: cannot start the key refresher: %s",
                          jwtk_errstr(st));
            return NGX_ERROR;
        }
    }
    ngx_http_jwtk_wait_for_keys(cycle, mcf);
    return NGX_OK;
}


/*
 * After a reload the old workers stop accepting at once, and a new worker's key URLs have given no keys
 * yet: its first requests would answer 503. So a new worker waits, before it accepts its first connection,
 * until every key URL has answered or NGX_HTTP_JWTK_FIRST_FETCH_WAIT ms have passed (connections wait in the
 * listen queue meanwhile, they are not refused). A failing endpoint costs a worker that long once.
 */
static void
ngx_http_jwtk_wait_for_keys(ngx_cycle_t *cycle, ngx_http_jwtk_main_conf_t *mcf)
{
    ngx_http_jwtk_keys_t **keys = mcf->keysets.elts;
    ngx_uint_t             i, waiting, waited;
    jwtk_stats             s;

    for (waited = 0; waited < NGX_HTTP_JWTK_FIRST_FETCH_WAIT; waited += 10) {
        waiting = 0;
        for (i = 0; i < mcf->keysets.nelts; i++) {
            if (!keys[i]->pull || keys[i]->first == NULL) {
                continue;
            }
            s.struct_size = sizeof(jwtk_stats);
            if (jwtk_stats_get(keys[i]->first, &s) == JWTK_OK && s.remote_sources_without_keys != 0) {
                waiting++;
            }
        }
        if (waiting == 0) {
            return;
        }
        ngx_msleep(10);
    }
    ngx_log_error(NGX_LOG_WARN, cycle->log, 0,
                  "jwtk: a key URL gave no keys within %ui ms of the worker's start: its tokens answer 503 "
                  "until it does", (ngx_uint_t) NGX_HTTP_JWTK_FIRST_FETCH_WAIT);
}


/*
 * Access phase: runs the key subrequests that are due, one at a time (NGX_AGAIN while one runs), then
 * publishes what changed. NGX_OK: verify with the keys held; NGX_AGAIN: wait; NGX_ERROR: 500 (a source
 * that never answered, or a document that is not a key set, as NGINX Plus answers).
 */
ngx_int_t
ngx_http_jwtk_fetch_keys(ngx_http_request_t *r, ngx_http_jwtk_policy_t *policy, ngx_http_jwtk_ctx_t *ctx)
{
    ngx_http_jwtk_keys_t          *keys = policy->keys;
    ngx_http_jwtk_key_request_t   *kr;
    ngx_http_jwtk_ctx_t           *cap;
    ngx_http_post_subrequest_t    *ps;
    ngx_http_request_t            *sr;
    ngx_pool_cleanup_t            *cln;
    jwtk_ctx                      *jctx;
    time_t                         now;
    ngx_uint_t                     n;
    int                            st;

    if (keys->requests == NULL) {
        return NGX_OK;
    }
    if (ctx->fetching != NULL) {
        /* Back after a subrequest. */
        kr = ctx->fetching;
        ctx->fetching = NULL;
        if (ctx->key_result != NGX_OK && kr->body == NULL) {
            ngx_log_error(NGX_LOG_ERR, r->connection->log, 0,
                          "jwtk: auth_jwt_key_request \"%V\" failed and no keys were ever loaded from it",
                          &kr->uri);
            return NGX_ERROR;
        }
        if (ctx->key_result != NGX_OK) {
            ngx_log_error(NGX_LOG_WARN, r->connection->log, 0,
                          "jwtk: auth_jwt_key_request \"%V\" failed, keys held from its last answer are used",
                          &kr->uri);
        }
    }

    now = ngx_time();
    kr = keys->requests->elts;
    n = keys->requests->nelts;
    for (/* void */; ctx->next_request < n; ctx->next_request++) {
        kr = (ngx_http_jwtk_key_request_t *) keys->requests->elts + ctx->next_request;
        if (!ctx->refetch && kr->fetched != 0 && policy->cache != 0
            && now - kr->fetched < policy->cache)
        {
            continue;   /* fresh */
        }
        if (kr->body != NULL && kr->failed != 0 && now - kr->failed < 1) {
            continue;   /* failing: retried at most once a second, the held keys serve meanwhile */
        }
        if (kr->body != NULL && kr->in_flight != 0 && ngx_current_msec - kr->in_flight < 10000) {
            continue;   /* one subrequest at a time per worker (bounded, in case one never reports back) */
        }
        ps = ngx_palloc(r->pool, sizeof(ngx_http_post_subrequest_t));
        if (ps == NULL) {
            return NGX_ERROR;
        }
        ps->handler = ngx_http_jwtk_key_request_done;
        ps->data = ctx;
        ctx->fetching = kr;
        ctx->asked = ngx_current_msec;
        kr->in_flight = ngx_current_msec;
        ctx->key_result = NGX_AGAIN;
        ctx->next_request++;
        if (ngx_http_subrequest(r, &kr->uri, NULL, &sr, ps, NGX_HTTP_SUBREQUEST_WAITED) != NGX_OK) {
            return NGX_ERROR;
        }
        /* The answer is taken by ngx_http_jwtk_capture_body, not by nginx's in-memory subrequests: those
         * end the client's connection without an answer when a body outgrows subrequest_output_buffer_size. */
        cap = ngx_pcalloc(r->pool, sizeof(ngx_http_jwtk_ctx_t));
        cln = ngx_pool_cleanup_add(r->pool, 0);
        if (cap == NULL || cln == NULL) {
            return NGX_ERROR;
        }
        cap->capture = 1;
        cap->status = -1;
        cln->handler = ngx_http_jwtk_free_capture;
        cln->data = cap;
        ngx_http_set_ctx(sr, cap, ngx_http_jwtk_module);
        /* A key document is fetched with GET and without the client's body. */
        sr->method = NGX_HTTP_GET;
        ngx_str_set(&sr->method_name, "GET");
        sr->request_body = ngx_pcalloc(r->pool, sizeof(ngx_http_request_body_t));
        if (sr->request_body == NULL) {
            return NGX_ERROR;
        }
        return NGX_AGAIN;
    }

    if (!ctx->fetched) {
        return NGX_OK;
    }
    ctx->fetched = 0;
    jctx = ngx_http_jwtk_worker_ctx();
    st = ngx_http_jwtk_publish(r->pool, keys, jctx);
    if (st != JWTK_OK) {
        ngx_log_error(NGX_LOG_ERR, r->connection->log, 0, "jwtk: auth_jwt_key_request: %s (%s)",
                      jwtk_ctx_errmsg(jctx), jwtk_status_name(st));
        /* Forget the refused answers, so the next request that fetches them tries (and answers 500) again. */
        for (kr = keys->requests->elts, n = 0; n < keys->requests->nelts; n++) {
            if (kr[n].fetched == now && kr[n].body != NULL) {
                ngx_free(kr[n].body);
                kr[n].body = NULL;
                kr[n].fetched = 0;
            }
        }
        return NGX_ERROR;
    }
    if (jwtk_ctx_errmsg(jctx)[0] != '\0') {
        ngx_log_error(NGX_LOG_WARN, r->connection->log, 0, "jwtk: auth_jwt_key_request: keys skipped: %s",
                      jwtk_ctx_errmsg(jctx));
    }
    return NGX_OK;
}


/* An unknown kid may mean the keys rotated: fetch every key subrequest again, at most once per cooldown
 * per worker. 0: no key subrequests, or within the cooldown. */
ngx_uint_t
ngx_http_jwtk_refetch_for_kid(ngx_http_jwtk_keys_t *keys)
{
    time_t now = ngx_time();

    if (keys->requests == NULL || now - keys->kid_refetch < NGX_HTTP_JWTK_KID_COOLDOWN) {
        return 0;
    }
    keys->kid_refetch = now;
    return 1;
}


/* The subrequest's answer: its status and the body ngx_http_jwtk_capture_body took. Kept in worker memory
 * only if it changed. */
static ngx_int_t
ngx_http_jwtk_key_request_done(ngx_http_request_t *sr, void *data, ngx_int_t rc)
{
    ngx_http_jwtk_ctx_t          *ctx = data;
    ngx_http_jwtk_key_request_t  *kr = ctx->fetching;
    ngx_http_jwtk_ctx_t          *cap = ngx_http_get_module_ctx(sr, ngx_http_jwtk_module);

    if (kr == NULL || ctx->key_result != NGX_AGAIN) {
        return rc;
    }
    ctx->key_result = NGX_ERROR;
    if (kr->in_flight == ctx->asked) {
        kr->in_flight = 0;
    }
    if (rc != NGX_OK || sr->headers_out.status < 200 || sr->headers_out.status > 299 || cap == NULL
        || cap->too_big || cap->body_len == 0)
    {
        ngx_log_error(NGX_LOG_ERR, sr->connection->log, 0,
                      "jwtk: auth_jwt_key_request \"%V\" answered %ui (rc %i)%s", &kr->uri,
                      sr->headers_out.status, rc,
                      cap == NULL || cap->body_len == 0 ? " with no body"
                      : cap->too_big ? " with a body above 16 MiB" : "");
        kr->failed = ngx_time();
        return rc;
    }
    if (kr->body != NULL && ctx->asked < kr->asked) {
        ctx->key_result = NGX_OK;   /* an answer older than the one held (it was slower): the held one stays */
        return rc;
    }
    kr->asked = ctx->asked;
    if (kr->body == NULL || kr->len != cap->body_len || ngx_memcmp(kr->body, cap->body, cap->body_len) != 0) {
        if (kr->body != NULL) {
            ngx_free(kr->body);
        }
        kr->body = cap->body;        /* handed over: the capture's cleanup no longer frees it */
        kr->len = cap->body_len;
        cap->body = NULL;
        ctx->fetched = 1;
    }
    kr->fetched = ngx_time();
    kr->failed = 0;
    ctx->key_result = NGX_OK;
    return rc;
}


static void
ngx_http_jwtk_free_capture(void *data)
{
    ngx_http_jwtk_ctx_t *cap = data;

    if (cap->body != NULL) {
        ngx_free(cap->body);
        cap->body = NULL;
    }
}


static ngx_http_output_body_filter_pt ngx_http_jwtk_next_body_filter;

/*
 * A body filter that takes a key subrequest's answer (marked by its capture context) into worker memory,
 * up to 16 MiB (the key set limit; beyond it the answer is refused, whatever nginx's buffers), and passes
 * nothing on: the client never sees it. Every other response goes straight to the next filter.
 */
static ngx_int_t
ngx_http_jwtk_capture_body(ngx_http_request_t *r, ngx_chain_t *in)
{
    ngx_http_jwtk_ctx_t *cap;
    ngx_chain_t         *cl;
    ngx_buf_t           *b;
    off_t                size;
    size_t               want;
    u_char              *grown;
    ssize_t              n;

    if (r == r->main) {
        return ngx_http_jwtk_next_body_filter(r, in);
    }
    cap = ngx_http_get_module_ctx(r, ngx_http_jwtk_module);
    if (cap == NULL || !cap->capture) {
        return ngx_http_jwtk_next_body_filter(r, in);
    }
    for (cl = in; cl != NULL; cl = cl->next) {
        b = cl->buf;
        size = ngx_buf_special(b) ? 0 : ngx_buf_size(b);
        if (size > 0 && !cap->too_big) {
            if (size > NGX_HTTP_JWTK_MAX_KEY_FILE - (off_t) cap->body_len) {
                cap->too_big = 1;
            } else {
                want = cap->body_len + (size_t) size;
                if (want > cap->body_size) {
                    grown = ngx_alloc(ngx_max(want, 2 * cap->body_size), r->connection->log);
                    if (grown == NULL) {
                        return NGX_ERROR;
                    }
                    if (cap->body != NULL) {
                        ngx_memcpy(grown, cap->body, cap->body_len);
                        ngx_free(cap->body);
                    }
                    cap->body = grown;
                    cap->body_size = ngx_max(want, 2 * cap->body_size);
                }
                if (ngx_buf_in_memory(b)) {
                    ngx_memcpy(cap->body + cap->body_len, b->pos, (size_t) size);
                } else {
                    n = ngx_read_file(b->file, cap->body + cap->body_len, (size_t) size, b->file_pos);
                    if (n != (ssize_t) size) {
                        return NGX_ERROR;
                    }
                }
                cap->body_len = want;
            }
        }
        /* Consumed, so the producer (upstream, static file) reuses or frees its buffers. */
        if (ngx_buf_in_memory(b)) {
            b->pos = b->last;
        }
        if (b->in_file) {
            b->file_pos = b->file_last;
        }
    }
    return NGX_OK;
}


ngx_int_t
ngx_http_jwtk_init_capture(void)
{
    ngx_http_jwtk_next_body_filter = ngx_http_top_body_filter;
    ngx_http_top_body_filter = ngx_http_jwtk_capture_body;
    return NGX_OK;
}
