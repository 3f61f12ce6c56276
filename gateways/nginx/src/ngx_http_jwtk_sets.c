/*
 * Key sources with variables (auth_jwt_key_file $file;
 * auth_jwt_key_request /keys/$tenant;), as NGINX Plus documents them: the
 * names are resolved per request, and the level's key set is the union of
 * what the resolved files and URIs hold (with its fixed key files).
 *
 * Each location keeps, per worker, the key sets of the last resolved names
 * it saw (jwtk_key_sets, 16 by default; the least recently used leaves
 * first, counted as key_set_evictions): a keystore and the location's
 * verifier on it, and each source's last document. A file is checked by
 * mtime and size (at most once per auth_jwt_key_cache when it is set) and
 * read again only when they changed; a URI is fetched as a fixed key
 * subrequest is (auth_jwt_key_cache, else every request); documents are
 * parsed again only when their bytes changed. A name that resolves to
 * nothing, a missing file or a failing subrequest with no keys held is
 * NGINX Plus's 500.
 */
#include "ngx_http_jwtk_module.h"

static void ngx_http_jwtk_free_set(ngx_http_jwtk_set_t *set);
static void ngx_http_jwtk_release_set(void *data);


/* A ".." path segment: a name from a client's variable cannot leave the
 * directory (or the location) the configuration names. */
static ngx_uint_t
ngx_http_jwtk_has_dotdot(ngx_str_t *name)
{
    u_char  *p, *last;

    last = name->data + name->len;

    for (p = name->data; p + 1 < last; p++) {
        if (p[0] == '.' && p[1] == '.'
            && (p == name->data || p[-1] == '/')
            && (p + 2 == last || p[2] == '/' || p[2] == '?'))
        {
            return 1;
        }
    }

    return 0;
}


/* The resolved names of the level's sources, each followed by a NUL: the
 * key of a key set. */
static ngx_int_t
ngx_http_jwtk_resolve(ngx_http_request_t *r, ngx_http_jwtk_keys_t *keys,
    ngx_str_t *names)
{
    ngx_http_jwtk_key_source_t  **src = keys->sources->elts;
    ngx_str_t                    *v;
    ngx_uint_t                    i;
    size_t                        len;
    u_char                       *p;

    v = ngx_palloc(r->pool, keys->sources->nelts * sizeof(ngx_str_t));
    if (v == NULL) {
        return NGX_ERROR;
    }

    len = 0;

    for (i = 0; i < keys->sources->nelts; i++) {
        if (ngx_http_complex_value(r, &src[i]->value, &v[i]) != NGX_OK) {
            return NGX_ERROR;
        }

        if (v[i].len == 0
            || ngx_strlchr(v[i].data, v[i].data + v[i].len, '\0') != NULL
            || (src[i]->request && v[i].data[0] != '/')
            || ngx_http_jwtk_has_dotdot(&v[i]))
        {
            ngx_log_error(NGX_LOG_ERR, r->connection->log, 0,
                          "jwtk: %s \"%V\" resolved to \"%V\": %s",
                          src[i]->request ? "auth_jwt_key_request"
                                          : "auth_jwt_key_file",
                          &src[i]->name, &v[i],
                          src[i]->request
                          ? "not a local URI without \"..\""
                          : "not a file name without \"..\"");
            return NGX_ERROR;
        }

        if (!src[i]->request
            && ngx_get_full_name(r->pool,
                                 (ngx_str_t *) &ngx_cycle->conf_prefix,
                                 &v[i])
               != NGX_OK)
        {
            return NGX_ERROR;
        }

        len += v[i].len + 1;
    }

    names->data = ngx_pnalloc(r->pool, len);
    if (names->data == NULL) {
        return NGX_ERROR;
    }

    p = names->data;

    for (i = 0; i < keys->sources->nelts; i++) {
        p = ngx_cpymem(p, v[i].data, v[i].len);
        *p++ = '\0';
    }

    names->len = len;

    return NGX_OK;
}


static ngx_http_jwtk_set_t *
ngx_http_jwtk_new_set(ngx_http_request_t *r, ngx_http_jwtk_policy_t *policy,
    ngx_str_t *names)
{
    ngx_http_jwtk_key_source_t  **src = policy->keys->sources->elts;
    ngx_http_jwtk_set_t          *set;
    ngx_uint_t                    i, n = policy->keys->sources->nelts;
    size_t                        size;
    u_char                       *p;
    jwtk_ctx                     *jctx;
    int                           st;

    size = sizeof(ngx_http_jwtk_set_t)
           + n * sizeof(ngx_http_jwtk_key_request_t) + names->len;

    set = ngx_alloc(size, r->connection->log);
    if (set == NULL) {
        return NULL;
    }

    ngx_memzero(set, size);
    set->docs = (ngx_http_jwtk_key_request_t *) (set + 1);
    set->ndocs = n;
    set->name = (u_char *) (set->docs + n);
    set->name_len = names->len;
    ngx_memcpy(set->name, names->data, names->len);

    p = set->name;

    for (i = 0; i < n; i++) {
        set->docs[i].uri.data = p;
        set->docs[i].uri.len = ngx_strlen(p);
        set->docs[i].file = !src[i]->request;
        p += set->docs[i].uri.len + 1;
    }

    if (ngx_http_jwtk_new_keystore(&set->keystore) != JWTK_OK) {
        ngx_log_error(NGX_LOG_ERR, r->connection->log, 0,
                      "jwtk: no memory for a key set's keystore");
        ngx_free(set);
        return NULL;
    }

    jctx = ngx_http_jwtk_worker_ctx();

    st = jwtk_verifier_new_ex((const char *) policy->json.data,
                              policy->json.len, set->keystore, jctx,
                              &set->verifier);
    if (st != JWTK_OK) {
        ngx_log_error(NGX_LOG_ERR, r->connection->log, 0,
                      "jwtk: a key set's verifier: %s (%s)",
                      jwtk_ctx_errmsg(jctx), jwtk_status_name(st));
        jwtk_keystore_free(set->keystore);
        ngx_free(set);
        return NULL;
    }

    set->last.struct_size = sizeof(jwtk_stats);

    return set;
}


/* Makes room for one more key set: the least recently used one that no
 * request is using leaves (its counters published first). */
static void
ngx_http_jwtk_evict(ngx_http_request_t *r, ngx_http_jwtk_policy_t *policy)
{
    ngx_queue_t          *q;
    ngx_http_jwtk_set_t  *set;

    for (q = ngx_queue_last(&policy->sets);
         q != ngx_queue_sentinel(&policy->sets);
         q = ngx_queue_prev(q))
    {
        set = ngx_queue_data(q, ngx_http_jwtk_set_t, queue);

        if (set->refs != 0) {
            continue;
        }

        ngx_log_debug1(NGX_LOG_DEBUG_HTTP, r->connection->log, 0,
                       "jwtk: key set \"%s\" evicted", set->name);

        ngx_queue_remove(q);
        policy->nsets--;
        ngx_http_jwtk_publish_set(policy, set);
        ngx_http_jwtk_count(policy, NGX_HTTP_JWTK_COUNT_EVICTED);
        ngx_http_jwtk_free_set(set);
        return;
    }

    /* every set is in use: the cache grows past its cap until they end */
}


/*
 * Chooses the request's key set by the resolved names (ctx->set), making it
 * when new. NGX_OK, or NGX_ERROR (500).
 */
ngx_int_t
ngx_http_jwtk_choose_set(ngx_http_request_t *r,
    ngx_http_jwtk_policy_t *policy, ngx_http_jwtk_ctx_t *ctx)
{
    ngx_str_t             names;
    ngx_queue_t          *q;
    ngx_http_jwtk_set_t  *set;
    ngx_pool_cleanup_t   *cln;

    if (ngx_http_jwtk_resolve(r, policy->keys, &names) != NGX_OK) {
        return NGX_ERROR;
    }

    cln = ngx_pool_cleanup_add(r->pool, 0);
    if (cln == NULL) {
        return NGX_ERROR;
    }

    for (q = ngx_queue_head(&policy->sets);
         q != ngx_queue_sentinel(&policy->sets);
         q = ngx_queue_next(q))
    {
        set = ngx_queue_data(q, ngx_http_jwtk_set_t, queue);

        if (set->name_len == names.len
            && ngx_memcmp(set->name, names.data, names.len) == 0)
        {
            ngx_queue_remove(q);
            goto found;
        }
    }

    if (policy->nsets >= policy->max_sets) {
        ngx_http_jwtk_evict(r, policy);
    }

    set = ngx_http_jwtk_new_set(r, policy, &names);
    if (set == NULL) {
        return NGX_ERROR;
    }

    policy->nsets++;

    ngx_log_debug2(NGX_LOG_DEBUG_HTTP, r->connection->log, 0,
                   "jwtk: new key set \"%s\" (%ui in this location)",
                   set->name, policy->nsets);

found:

    ngx_queue_insert_head(&policy->sets, &set->queue);

    set->refs++;
    cln->handler = ngx_http_jwtk_release_set;
    cln->data = set;
    ctx->set = set;

    return NGX_OK;
}


static void
ngx_http_jwtk_release_set(void *data)
{
    ngx_http_jwtk_set_t  *set = data;

    set->refs--;
}


/*
 * A key file of a key set: checked by mtime and size (not within
 * auth_jwt_key_cache of the last check), read again only when they changed.
 * NGX_OK, or NGX_ERROR (500: missing, unreadable, not a file of 1 byte to
 * 16 MiB).
 */
ngx_int_t
ngx_http_jwtk_read_key_doc(ngx_http_request_t *r,
    ngx_http_jwtk_policy_t *policy, ngx_http_jwtk_ctx_t *ctx,
    ngx_http_jwtk_key_request_t *doc)
{
    ngx_file_info_t   fi;
    ngx_fd_t          fd;
    time_t            now = ngx_time();
    off_t             size;
    ssize_t           n;
    u_char           *body;
    const char       *failed;

    if (doc->body != NULL && !ctx->refetch && policy->cache != 0
        && now - doc->fetched < policy->cache)
    {
        return NGX_OK;
    }

    fd = ngx_open_file(doc->uri.data, NGX_FILE_RDONLY, NGX_FILE_OPEN, 0);
    if (fd == NGX_INVALID_FILE) {
        failed = "cannot open";
        goto error;
    }

    if (ngx_fd_info(fd, &fi) == NGX_FILE_ERROR) {
        failed = "cannot stat";
        goto close;
    }

    size = ngx_file_size(&fi);

    if (doc->body != NULL && ngx_file_mtime(&fi) == doc->mtime
        && size == doc->size)
    {
        ngx_close_file(fd);
        doc->fetched = now;
        return NGX_OK;
    }

    if (!ngx_is_file(&fi) || size <= 0 || size > NGX_HTTP_JWTK_MAX_KEY_FILE) {
        ngx_set_errno(0);
        failed = "not a regular file of 1 byte to 16 MiB";
        goto close;
    }

    body = ngx_alloc(size, r->connection->log);
    if (body == NULL) {
        ngx_close_file(fd);
        return NGX_ERROR;
    }

    n = ngx_read_fd(fd, body, size);
    if (n != size) {
        ngx_free(body);
        failed = "cannot read";
        goto close;
    }

    ngx_close_file(fd);

    ngx_log_debug2(NGX_LOG_DEBUG_HTTP, r->connection->log, 0,
                   "jwtk: key file \"%V\" read (%O bytes)", &doc->uri, size);

    if (doc->body != NULL) {
        ngx_free(doc->body);
    }

    doc->body = body;
    doc->len = size;
    doc->mtime = ngx_file_mtime(&fi);
    doc->size = size;
    doc->fetched = now;
    ctx->fetched = 1;

    return NGX_OK;

close:

    ngx_close_file(fd);

error:

    ngx_log_error(NGX_LOG_ERR, r->connection->log, ngx_errno,
                  "jwtk: auth_jwt_key_file \"%V\": %s", &doc->uri, failed);

    return NGX_ERROR;
}


/* Loads a key set: the level's fixed key files and its sources' documents,
 * together (ngx_http_jwtk_load_keys); `kinds`: the kinds published. */
int
ngx_http_jwtk_load_set(ngx_http_request_t *r, ngx_http_jwtk_set_t *set,
    ngx_http_jwtk_keys_t *keys, jwtk_ctx *jctx, ngx_uint_t *kinds)
{
    ngx_uint_t   i, n;
    ngx_str_t   *file;
    jwtk_str    *docs;
    int          st;

    n = keys->files ? keys->files->nelts : 0;

    docs = ngx_palloc(r->pool, (n + set->ndocs) * sizeof(jwtk_str));
    if (docs == NULL) {
        return JWTK_E_NULL;
    }

    for (i = 0; i < n; i++) {
        file = keys->files->elts;
        docs[i].ptr = (const char *) file[i].data;
        docs[i].len = file[i].len;
    }

    for (i = 0; i < set->ndocs; i++) {
        if (set->docs[i].body != NULL) {
            docs[n].ptr = (const char *) set->docs[i].body;
            docs[n].len = set->docs[i].len;
            n++;
        }
    }

    st = ngx_http_jwtk_load_keys(set->keystore, docs, n, jctx, kinds);
    if (st == JWTK_OK) {
        set->kinds |= *kinds;   /* a kind not published keeps its keys */
    }

    return st;
}


static void
ngx_http_jwtk_free_set(ngx_http_jwtk_set_t *set)
{
    ngx_uint_t  i;

    for (i = 0; i < set->ndocs; i++) {
        if (set->docs[i].body != NULL) {
            ngx_free(set->docs[i].body);
        }
    }

    jwtk_verifier_free(set->verifier);
    jwtk_keystore_free(set->keystore);
    ngx_free(set);
}


/* The worker's key sets of a location, freed with the cycle. */
static void
ngx_http_jwtk_free_sets(void *data)
{
    ngx_http_jwtk_policy_t  *policy = data;
    ngx_queue_t             *q;

    while (!ngx_queue_empty(&policy->sets)) {
        q = ngx_queue_head(&policy->sets);
        ngx_queue_remove(q);
        ngx_http_jwtk_free_set(ngx_queue_data(q, ngx_http_jwtk_set_t, queue));
    }

    policy->nsets = 0;
}


/* A location whose key sources have variables: its (empty) key set cache,
 * and the verifier configuration each key set's verifier is made from. */
ngx_int_t
ngx_http_jwtk_init_sets(ngx_conf_t *cf, ngx_http_jwtk_policy_t *policy,
    ngx_str_t *json, ngx_uint_t max_sets)
{
    ngx_pool_cleanup_t  *cln;

    ngx_queue_init(&policy->sets);

    if (policy->keys->sources == NULL) {
        return NGX_OK;
    }

    policy->json.data = ngx_pstrdup(cf->pool, json);
    cln = ngx_pool_cleanup_add(cf->pool, 0);
    if (policy->json.data == NULL || cln == NULL) {
        return NGX_ERROR;
    }

    policy->json.len = json->len;
    policy->max_sets = max_sets;
    cln->handler = ngx_http_jwtk_free_sets;
    cln->data = policy;

    return NGX_OK;
}
