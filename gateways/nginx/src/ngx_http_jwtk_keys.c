/*
 * Key sources. One group per configuration level that names any (inherited
 * whole otherwise), feeding one jwtk_keystore:
 *
 *   auth_jwt_key_file     without variables: read and loaded at
 *                         configuration (so `nginx -t` and a reload check
 *                         them; a reload that cannot load them keeps the
 *                         running configuration);
 *   auth_jwt_key_request  without variables: a subrequest from the access
 *                         phase when the worker's copy is older than the
 *                         location's auth_jwt_key_cache (0, Plus's default:
 *                         every request), its body taken by the capture
 *                         filter (ngx_http_jwtk_capture.c); the answer is
 *                         loaded only when its bytes changed, so a repeated
 *                         document is never parsed again;
 *   either with variables the level's key set is chosen per request by the
 *                         resolved names (ngx_http_jwtk_sets.c);
 *   jwtk_key_url          libjwtk's own refresher thread (pull mode,
 *                         jwtk_keystore_start), started in each worker after
 *                         fork: refresh ahead of max-age with ETags, one
 *                         fetch per cooldown on an unknown kid, stale keys
 *                         while the endpoint fails.
 *
 * Every keystore is made by ngx_http_jwtk_new_keystore and every document of
 * the Plus directives is loaded by ngx_http_jwtk_load_keys (files and answers
 * together, jwtk_keystore_load_jwks_many, as the keys of any issuer): a
 * document that is not a key set keeps the old keys.
 */
#include "ngx_http_jwtk_module.h"

static ngx_int_t ngx_http_jwtk_key_request_done(ngx_http_request_t *sr,
    void *data, ngx_int_t rc);
static void ngx_http_jwtk_wait_for_keys(ngx_cycle_t *cycle,
    ngx_http_jwtk_main_conf_t *mcf);
static void ngx_http_jwtk_free_keystore(void *data);
static void ngx_http_jwtk_free_bodies(void *data);


/*
 * auth_jwt_key_file FILE; auth_jwt_key_request URI; (cmd->offset: the list).
 * Both may hold variables (compiled here, resolved per request); the place
 * is recorded, since files are read only when the locations are merged.
 */
char *
ngx_http_jwtk_key_source(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_array_t                      **list;
    ngx_str_t                         *value = cf->args->elts;
    ngx_http_jwtk_key_source_t        *src;
    ngx_http_compile_complex_value_t   ccv;

    list = (ngx_array_t **) ((char *) conf + cmd->offset);

    if (*list == NGX_CONF_UNSET_PTR) {
        *list = ngx_array_create(cf->pool, 2,
                                 sizeof(ngx_http_jwtk_key_source_t));
        if (*list == NULL) {
            return NGX_CONF_ERROR;
        }
    }

    src = ngx_array_push(*list);
    if (src == NULL) {
        return NGX_CONF_ERROR;
    }

    ngx_memzero(src, sizeof(ngx_http_jwtk_key_source_t));
    src->name = value[1];
    src->request = (cmd->offset
                    == offsetof(ngx_http_jwtk_loc_conf_t, key_requests));

    if (src->request && (value[1].len == 0 || value[1].data[0] != '/')) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "auth_jwt_key_request \"%V\": a local URI "
                           "(starting with \"/\") is required", &value[1]);
        return NGX_CONF_ERROR;
    }

    ngx_memzero(&ccv, sizeof(ngx_http_compile_complex_value_t));
    ccv.cf = cf;
    ccv.value = &value[1];
    ccv.complex_value = &src->value;

    if (ngx_http_compile_complex_value(&ccv) != NGX_OK) {
        return NGX_CONF_ERROR;
    }

    if (ngx_http_jwtk_place_here(cf, &src->place) != NGX_OK) {
        return NGX_CONF_ERROR;
    }

    return NGX_CONF_OK;
}


/* A keystore, made here only: the configuration's and the key sets'. */
int
ngx_http_jwtk_new_keystore(jwtk_keystore **ks)
{
    return jwtk_keystore_new(ks);
}


/*
 * Loads the documents of the Plus key directives (key files, key
 * subrequests' answers; JWKS, JWK, {kid: PEM} map or PEM) into `ks` as the
 * keys of any issuer: the one call for every key set of auth_jwt_key_file
 * and auth_jwt_key_request, at configuration and in workers, so a rule on
 * what these directives accept is set here.
 *
 * Both kinds of key are read from every document, at every level, as NGINX
 * Plus reads its key files: signature keys (jwtk_keystore_load_jwks_flags)
 * and decryption keys for auth_jwt_type encrypted | nested
 * (jwtk_keystore_load_decryption_keys_many). A keystore is shared by every
 * level below the one that declared the files, whatever their auth_jwt_type,
 * so what it holds cannot depend on the location that happened to be merged
 * first. `kinds` gets the kinds published (NGX_HTTP_JWTK_KEYS_*); a kind not
 * published keeps the keystore's old keys of that kind (libjwtk's rule: a
 * failed load keeps the keys held). Which kinds a location needs is checked
 * against them (ngx_http_jwtk_check_kinds). Nothing is published when an
 * error is returned.
 */
int
ngx_http_jwtk_load_keys(jwtk_keystore *ks, jwtk_str *docs, size_t n,
    jwtk_ctx *ctx, ngx_uint_t *kinds)
{
    /*
     * NGINX Plus loads HMAC secrets shorter than the hash output: the Plus
     * directives do too, each with a warning in ctx's message (logged at
     * configuration); jwt-kernel's own directives keep refusing them.
     */
    static const unsigned int  flags = JWTK_LOAD_ALLOW_SHORT_HMAC_SECRETS;

    jwtk_str       *verify;
    jwtk_keystore  *scratch;
    size_t          i, m;
    ngx_uint_t      ndecrypt;
    int             st;

    *kinds = 0;

    st = jwtk_keystore_load_jwks_flags(ks, NULL, 0, docs, n, flags, ctx);

    if (st == JWTK_OK) {
        /* The usual case: signature keys (a document of decryption keys
         * beside them has its keys listed as refused in ctx's message). A
         * set of public keys holds no decryption key: that load fails and
         * publishes nothing. */
        *kinds = NGX_HTTP_JWTK_KEYS_VERIFY;

        if (jwtk_keystore_load_decryption_keys_many(ks, docs, n, NULL)
            == JWTK_OK)
        {
            *kinds |= NGX_HTTP_JWTK_KEYS_DECRYPT;
        }

        return JWTK_OK;
    }

    /*
     * No signature key in the union, or a document that is not a set of
     * them (a PEM private key): the documents holding decryption keys are
     * told apart, each tried alone on a scratch keystore, and the others
     * are the signature keys (none: decryption keys only).
     */
    if (jwtk_keystore_new(&scratch) != JWTK_OK) {
        return JWTK_E_NULL;
    }

    verify = ngx_alloc(n * sizeof(jwtk_str), ngx_cycle->log);
    if (verify == NULL) {
        jwtk_keystore_free(scratch);
        return JWTK_E_NULL;
    }

    for (i = 0, m = 0, ndecrypt = 0; i < n; i++) {
        if (jwtk_keystore_load_decryption_keys(scratch, docs[i].ptr,
                                               docs[i].len, NULL)
            == JWTK_OK)
        {
            ndecrypt++;

        } else {
            verify[m++] = docs[i];
        }
    }

    jwtk_keystore_free(scratch);

    if (ndecrypt == 0) {
        ngx_free(verify);
        return st;      /* ctx holds the signature keys' error */
    }

    if (m != 0) {
        st = jwtk_keystore_load_jwks_flags(ks, NULL, 0, verify, m, flags,
                                           ctx);
        if (st != JWTK_OK) {
            ngx_free(verify);
            return st;
        }

        *kinds = NGX_HTTP_JWTK_KEYS_VERIFY;
    }

    ngx_free(verify);

    /* Each of those documents held decryption keys alone: this cannot
     * fail. With no signature key (m == 0), ctx's message stays why the
     * documents are no signature keys: a signed location refused on them
     * says it (a PEM private key: give its public key). */
    if (jwtk_keystore_load_decryption_keys_many(ks, docs, n, NULL)
        == JWTK_OK)
    {
        *kinds |= NGX_HTTP_JWTK_KEYS_DECRYPT;
    }

    return JWTK_OK;
}


static char *
ngx_http_jwtk_read_key_file(ngx_conf_t *cf, ngx_http_jwtk_key_source_t *kf,
    ngx_str_t *out)
{
    ngx_fd_t          fd;
    ngx_str_t         name = kf->name;
    ngx_file_info_t   fi;
    off_t             size;
    ssize_t           n;

    if (ngx_conf_full_name(cf->cycle, &name, 1) != NGX_OK) {
        return NGX_CONF_ERROR;
    }

    fd = ngx_open_file(name.data, NGX_FILE_RDONLY, NGX_FILE_OPEN, 0);
    if (fd == NGX_INVALID_FILE) {
        ngx_http_jwtk_place_error(NGX_LOG_EMERG, cf, &kf->place, ngx_errno,
                                  "auth_jwt_key_file: cannot open \"%V\"",
                                  &name);
        return NGX_CONF_ERROR;
    }

    if (ngx_fd_info(fd, &fi) == NGX_FILE_ERROR) {
        ngx_http_jwtk_place_error(NGX_LOG_EMERG, cf, &kf->place, ngx_errno,
                                  "auth_jwt_key_file: cannot stat \"%V\"",
                                  &name);
        ngx_close_file(fd);
        return NGX_CONF_ERROR;
    }

    size = ngx_file_size(&fi);

    if (!ngx_is_file(&fi) || size <= 0 || size > NGX_HTTP_JWTK_MAX_KEY_FILE) {
        ngx_http_jwtk_place_error(NGX_LOG_EMERG, cf, &kf->place, 0,
                                  "auth_jwt_key_file \"%V\": not a regular "
                                  "file of 1 byte to 16 MiB", &name);
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
                                  &name);
        return NGX_CONF_ERROR;
    }

    out->len = size;
    kf->name = name;

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
    ngx_str_t                    together, *file = files->elts;
    ngx_uint_t                   i;
    jwtk_keystore               *scratch;
    jwtk_str                     doc;
    ngx_http_jwtk_key_source_t **kf = key_files->elts;
    ngx_uint_t                   kinds;
    int                          one;

    together.data = (u_char *) jwtk_ctx_errmsg(ctx);
    together.len = ngx_strlen(together.data);
    together.data = ngx_pstrdup(cf->pool, &together);
    if (together.data == NULL) {
        return;
    }

    for (i = 0; files->nelts > 1 && i < files->nelts; i++) {
        if (ngx_http_jwtk_new_keystore(&scratch) != JWTK_OK) {
            ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                               "jwtk: no memory for a keystore");
            break;
        }

        doc.ptr = (const char *) file[i].data;
        doc.len = file[i].len;
        one = ngx_http_jwtk_load_keys(scratch, &doc, 1, ctx, &kinds);
        jwtk_keystore_free(scratch);

        if (one != JWTK_OK) {
            ngx_http_jwtk_place_error(NGX_LOG_EMERG, cf, &kf[i]->place, 0,
                                      "auth_jwt_key_file \"%V\": %s (%s)",
                                      &kf[i]->name, jwtk_ctx_errmsg(ctx),
                                      jwtk_status_name(one));
            return;
        }
    }

    if (files->nelts == 1) {
        ngx_http_jwtk_place_error(NGX_LOG_EMERG, cf, &kf[0]->place, 0,
                                  "auth_jwt_key_file \"%V\": %V (%s)",
                                  &kf[0]->name, &together,
                                  jwtk_status_name(st));
        return;
    }

    ngx_http_jwtk_place_error(NGX_LOG_EMERG, cf, &kf[0]->place, 0,
                              "auth_jwt_key_file \"%V\" and the %ui other "
                              "key files of this level: %V (%s)",
                              &kf[0]->name, files->nelts - 1, &together,
                              jwtk_status_name(st));
}


static void
ngx_http_jwtk_free_keystore(void *data)
{
    jwtk_keystore_free(data);
}


/* The worker's copies of the key subrequests' answers (ngx_alloc'ed), freed
 * with the cycle. */
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


/* Publishes the level's files and every subrequest answer held; the kinds
 * published (`kinds`) are added to the level's (a kind not published keeps
 * its old keys). */
static int
ngx_http_jwtk_publish(ngx_pool_t *pool, ngx_http_jwtk_keys_t *keys,
    jwtk_ctx *ctx, ngx_uint_t *kinds)
{
    ngx_uint_t                    i, n, total;
    ngx_str_t                    *file;
    ngx_http_jwtk_key_request_t  *kr;
    jwtk_str                     *docs;
    int                           st;

    *kinds = 0;

    total = (keys->files ? keys->files->nelts : 0)
            + (keys->requests ? keys->requests->nelts : 0);
    if (total == 0) {
        return JWTK_OK;
    }

    docs = ngx_palloc(pool, total * sizeof(jwtk_str));
    if (docs == NULL) {
        return JWTK_E_NULL;
    }

    n = 0;

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

    st = ngx_http_jwtk_load_keys(keys->keystore, docs, n, ctx, kinds);
    if (st == JWTK_OK) {
        keys->kinds |= *kinds;
    }

    return st;
}


/* Sorts a level's sources: the fixed key files (read now), the fixed key
 * subrequests, and the sources resolved per request. */
static char *
ngx_http_jwtk_sort_sources(ngx_conf_t *cf, ngx_http_jwtk_loc_conf_t *conf,
    ngx_http_jwtk_keys_t *keys, ngx_array_t *fixed_files)
{
    ngx_array_t                  *lists[2];
    ngx_http_jwtk_key_source_t   *src, **slot;
    ngx_uint_t                    l, i, dynamic = 0;
    ngx_str_t                    *file;
    ngx_http_jwtk_key_request_t  *kr;

    lists[0] = conf->key_files == NGX_CONF_UNSET_PTR ? NULL : conf->key_files;
    lists[1] = conf->key_requests == NGX_CONF_UNSET_PTR
               ? NULL : conf->key_requests;

    for (l = 0; l < 2; l++) {
        if (lists[l] == NULL) {
            continue;
        }
        src = lists[l]->elts;
        for (i = 0; i < lists[l]->nelts; i++) {
            if (src[i].value.lengths != NULL) {
                dynamic = 1;
            }
            if (src[i].request) {
                keys->subrequests = 1;
            }
        }
    }

    if (dynamic) {
        /* Key subrequests of such a level go with its key sets, fixed or
         * not: one set holds one union of documents. */
        keys->sources = ngx_array_create(cf->pool, 2, sizeof(void *));
        if (keys->sources == NULL) {
            return NGX_CONF_ERROR;
        }
    }

    for (l = 0; l < 2; l++) {
        if (lists[l] == NULL) {
            continue;
        }
        src = lists[l]->elts;
        for (i = 0; i < lists[l]->nelts; i++) {

            if (!src[i].request && src[i].value.lengths == NULL) {
                file = ngx_array_push(keys->files);
                slot = ngx_array_push(fixed_files);
                if (file == NULL || slot == NULL
                    || ngx_http_jwtk_read_key_file(cf, &src[i], file)
                       != NGX_CONF_OK)
                {
                    return NGX_CONF_ERROR;
                }
                *slot = &src[i];
                continue;
            }

            if (dynamic) {
                slot = ngx_array_push(keys->sources);
                if (slot == NULL) {
                    return NGX_CONF_ERROR;
                }
                *slot = &src[i];
                continue;
            }

            kr = ngx_array_push(keys->requests);
            if (kr == NULL) {
                return NGX_CONF_ERROR;
            }
            ngx_memzero(kr, sizeof(ngx_http_jwtk_key_request_t));
            kr->uri = src[i].name;
        }
    }

    return NGX_CONF_OK;
}


/*
 * A level's key sources, built when its locations are merged (as
 * ngx_http_ssl_merge_srv_conf builds its SSL_CTX): the keystore, the fixed
 * key files loaded into it, the key subrequests' states.
 */
char *
ngx_http_jwtk_build_keys(ngx_conf_t *cf, ngx_http_jwtk_loc_conf_t *conf)
{
    ngx_http_jwtk_main_conf_t    *mcf;
    ngx_http_core_loc_conf_t     *clcf;
    ngx_http_jwtk_keys_t         *keys, **slot;
    ngx_http_jwtk_key_source_t  **kf;
    ngx_pool_cleanup_t           *cln;
    ngx_array_t                  *fixed_files;
    ngx_uint_t                    kinds;
    jwtk_ctx                     *ctx;
    int                           st;

    ctx = ngx_http_jwtk_conf_ctx(cf);
    keys = ngx_pcalloc(cf->pool, sizeof(ngx_http_jwtk_keys_t));
    cln = ngx_pool_cleanup_add(cf->pool, 0);
    if (ctx == NULL || keys == NULL || cln == NULL) {
        return NGX_CONF_ERROR;
    }

    if (ngx_http_jwtk_new_keystore(&keys->keystore) != JWTK_OK) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "jwtk: no memory for a keystore");
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

    keys->files = ngx_array_create(cf->pool, 2, sizeof(ngx_str_t));
    keys->requests = ngx_array_create(cf->pool, 2,
                                      sizeof(ngx_http_jwtk_key_request_t));
    fixed_files = ngx_array_create(cf->pool, 2, sizeof(void *));
    cln = ngx_pool_cleanup_add(cf->pool, 0);
    if (keys->files == NULL || keys->requests == NULL || fixed_files == NULL
        || cln == NULL)
    {
        return NGX_CONF_ERROR;
    }

    cln->handler = ngx_http_jwtk_free_bodies;
    cln->data = keys->requests;
    keys->fixed = fixed_files;

    if (ngx_http_jwtk_sort_sources(cf, conf, keys, fixed_files)
        != NGX_CONF_OK)
    {
        return NGX_CONF_ERROR;
    }

    if (keys->files->nelts != 0) {
        st = ngx_http_jwtk_publish(cf->pool, keys, ctx, &kinds);
        if (st != JWTK_OK) {
            ngx_http_jwtk_key_files_refused(cf, fixed_files, keys->files,
                                            ctx, st);
            return NGX_CONF_ERROR;
        }

        kf = fixed_files->elts;

        if (!(kinds & NGX_HTTP_JWTK_KEYS_VERIFY)) {
            /* Decryption keys only: no warning (a level of them is right
             * for encrypted locations); why they are no signature keys is
             * kept for the refusal of a location that needs some. */
            keys->no_verify.data = (u_char *) jwtk_ctx_errmsg(ctx);
            keys->no_verify.len = ngx_strlen(keys->no_verify.data);
            keys->no_verify.data = ngx_pstrdup(cf->pool, &keys->no_verify);
            if (keys->no_verify.data == NULL) {
                return NGX_CONF_ERROR;
            }

        } else if (jwtk_ctx_errmsg(ctx)[0] != '\0'
                   && !(kinds & NGX_HTTP_JWTK_KEYS_DECRYPT))
        {
            ngx_http_jwtk_place_error(NGX_LOG_WARN, cf, &kf[0]->place, 0,
                                      "auth_jwt_key_file \"%V\"%s: keys "
                                      "skipped or loaded with a warning: %s",
                                      &kf[0]->name,
                                      fixed_files->nelts > 1
                                      ? " (and this level's other key files)"
                                      : "", jwtk_ctx_errmsg(ctx));

        } else if (jwtk_ctx_errmsg(ctx)[0] != '\0') {
            ngx_http_jwtk_place_error(NGX_LOG_WARN, cf, &kf[0]->place, 0,
                                      "auth_jwt_key_file \"%V\"%s: "
                                      "signature keys and the decryption "
                                      "keys of auth_jwt_type encrypted or "
                                      "nested loaded; as signature keys: %s",
                                      &kf[0]->name,
                                      fixed_files->nelts > 1
                                      ? " (and this level's other key files)"
                                      : "", jwtk_ctx_errmsg(ctx));
        }

    } else {
        keys->files = NULL;
    }

    if (keys->requests->nelts == 0) {
        keys->requests = NULL;
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


/* Pull mode: libjwtk's refresher thread, one per keystore, in this worker
 * (after fork). */
ngx_int_t
ngx_http_jwtk_start_keys(ngx_cycle_t *cycle, ngx_http_jwtk_main_conf_t *mcf)
{
    ngx_http_jwtk_keys_t  **keys = mcf->keysets.elts;
    ngx_uint_t              i;
    int                     st;

    for (i = 0; i < mcf->keysets.nelts; i++) {
        if (!keys[i]->pull) {
            continue;
        }

        st = jwtk_keystore_start(keys[i]->keystore);
        if (st != JWTK_OK) {
            ngx_log_error(NGX_LOG_EMERG, cycle->log, 0,
                          "jwtk: cannot start the key refresher: %s",
                          jwtk_errstr(st));
            return NGX_ERROR;
        }
    }

    ngx_http_jwtk_wait_for_keys(cycle, mcf);

    return NGX_OK;
}


/*
 * After a reload the old workers stop accepting at once, and a new worker's
 * key URLs have given no keys yet: its first requests would answer 503. So a
 * new worker waits, before it accepts its first connection, until every key
 * URL has answered or NGX_HTTP_JWTK_FIRST_FETCH_WAIT ms have passed
 * (connections wait in the listen queue meanwhile, they are not refused). A
 * failing endpoint costs a worker that long once.
 */
static void
ngx_http_jwtk_wait_for_keys(ngx_cycle_t *cycle,
    ngx_http_jwtk_main_conf_t *mcf)
{
    ngx_http_jwtk_keys_t  **keys = mcf->keysets.elts;
    ngx_uint_t              i, waiting, waited;
    jwtk_stats              s;

    for (waited = 0; waited < NGX_HTTP_JWTK_FIRST_FETCH_WAIT; waited += 10) {
        waiting = 0;

        for (i = 0; i < mcf->keysets.nelts; i++) {
            if (!keys[i]->pull || keys[i]->first == NULL) {
                continue;
            }

            s.struct_size = sizeof(jwtk_stats);
            if (jwtk_stats_get(keys[i]->first, &s) == JWTK_OK
                && s.remote_sources_without_keys != 0)
            {
                waiting++;
            }
        }

        if (waiting == 0) {
            return;
        }

        ngx_msleep(10);
    }

    ngx_log_error(NGX_LOG_WARN, cycle->log, 0,
                  "jwtk: a key URL gave no keys within %ui ms of the "
                  "worker's start: its tokens answer 503 until it does",
                  (ngx_uint_t) NGX_HTTP_JWTK_FIRST_FETCH_WAIT);
}


/* Starts the key subrequest for `kr` (its URI may carry arguments). */
static ngx_int_t
ngx_http_jwtk_start_key_request(ngx_http_request_t *r,
    ngx_http_jwtk_ctx_t *ctx, ngx_http_jwtk_key_request_t *kr)
{
    ngx_http_post_subrequest_t  *ps;
    ngx_http_request_t          *sr;
    ngx_str_t                    uri, args;
    u_char                      *q;

    ps = ngx_palloc(r->pool, sizeof(ngx_http_post_subrequest_t));
    if (ps == NULL) {
        return NGX_ERROR;
    }

    ps->handler = ngx_http_jwtk_key_request_done;
    ps->data = ctx;

    uri = kr->uri;
    ngx_str_null(&args);

    q = ngx_strlchr(uri.data, uri.data + uri.len, '?');
    if (q != NULL) {
        args.data = q + 1;
        args.len = uri.data + uri.len - args.data;
        uri.len = q - uri.data;
    }

    ctx->fetching = kr;
    ctx->asked = ngx_current_msec;
    ctx->key_result = NGX_AGAIN;
    kr->in_flight = ngx_current_msec;

    ngx_log_debug1(NGX_LOG_DEBUG_HTTP, r->connection->log, 0,
                   "jwtk: key subrequest \"%V\"", &kr->uri);

    if (ngx_http_subrequest(r, &uri, args.len ? &args : NULL, &sr, ps,
                            NGX_HTTP_SUBREQUEST_WAITED)
        != NGX_OK)
    {
        return NGX_ERROR;
    }

    if (ngx_http_jwtk_capture(sr) != NGX_OK) {
        return NGX_ERROR;
    }

    /* A key document is fetched with GET and without the client's body. */
    sr->method = NGX_HTTP_GET;
    ngx_str_set(&sr->method_name, "GET");

    sr->request_body = ngx_pcalloc(r->pool, sizeof(ngx_http_request_body_t));
    if (sr->request_body == NULL) {
        return NGX_ERROR;
    }

    return NGX_AGAIN;
}


/* Forgets what the sources gave at `now`: a refused document is fetched
 * (and answers 500) again by the next request. */
static void
ngx_http_jwtk_forget(ngx_http_jwtk_key_request_t *kr, ngx_uint_t n,
    time_t now)
{
    ngx_uint_t  i;

    for (i = 0; i < n; i++) {
        if (kr[i].fetched == now && kr[i].body != NULL) {
            ngx_free(kr[i].body);
            kr[i].body = NULL;
            kr[i].fetched = 0;
            kr[i].mtime = 0;
        }
    }
}


/*
 * Access phase: runs the key subrequests that are due, one at a time
 * (NGX_AGAIN while one runs), reads the key files of a key set chosen per
 * request, then loads what changed. NGX_OK: verify with the keys held;
 * NGX_AGAIN: wait; NGX_ERROR: 500 (a source that never answered, a missing
 * file, or a document that is not a key set, as NGINX Plus answers).
 */
ngx_int_t
ngx_http_jwtk_fetch_keys(ngx_http_request_t *r,
    ngx_http_jwtk_policy_t *policy, ngx_http_jwtk_ctx_t *ctx)
{
    ngx_http_jwtk_keys_t         *keys = policy->keys;
    ngx_http_jwtk_key_request_t  *kr, *docs;
    ngx_uint_t                    n, kinds;
    jwtk_ctx                     *jctx;
    time_t                        now;
    ngx_int_t                     rc;
    int                           st;

    if (keys->sources != NULL) {
        if (ctx->set == NULL) {
            rc = ngx_http_jwtk_choose_set(r, policy, ctx);
            if (rc != NGX_OK) {
                return rc;
            }
        }
        docs = ctx->set->docs;
        n = ctx->set->ndocs;

    } else if (keys->requests != NULL) {
        docs = keys->requests->elts;
        n = keys->requests->nelts;

    } else {
        return NGX_OK;
    }

    if (ctx->fetching != NULL) {
        /* Back after a subrequest. */
        kr = ctx->fetching;
        ctx->fetching = NULL;

        if (ctx->key_result != NGX_OK && kr->body == NULL) {
            ngx_log_error(NGX_LOG_ERR, r->connection->log, 0,
                          "jwtk: auth_jwt_key_request \"%V\" failed and no "
                          "keys were ever loaded from it", &kr->uri);
            return NGX_ERROR;
        }

        if (ctx->key_result != NGX_OK) {
            ngx_log_error(NGX_LOG_WARN, r->connection->log, 0,
                          "jwtk: auth_jwt_key_request \"%V\" failed, keys "
                          "held from its last answer are used", &kr->uri);
        }
    }

    now = ngx_time();

    for ( /* void */ ; ctx->next_request < n; ctx->next_request++) {
        kr = &docs[ctx->next_request];

        if (kr->file) {
            if (ngx_http_jwtk_read_key_doc(r, policy, ctx, kr) != NGX_OK) {
                return NGX_ERROR;
            }
            continue;
        }

        if (!ctx->refetch && kr->fetched != 0 && policy->cache != 0
            && now - kr->fetched < policy->cache)
        {
            continue;   /* fresh */
        }

        if (kr->body != NULL && kr->failed != 0 && now - kr->failed < 1) {
            continue;   /* failing: retried at most once a second, the held
                           keys serve meanwhile */
        }

        if (kr->body != NULL && kr->in_flight != 0
            && ngx_current_msec - kr->in_flight < 10000)
        {
            continue;   /* one subrequest at a time per worker (bounded, in
                           case one never reports back) */
        }

        ctx->next_request++;

        return ngx_http_jwtk_start_key_request(r, ctx, kr);
    }

    if (!ctx->fetched) {
        return NGX_OK;
    }

    ctx->fetched = 0;
    jctx = ngx_http_jwtk_worker_ctx();

    if (ctx->set != NULL) {
        st = ngx_http_jwtk_load_set(r, ctx->set, keys, jctx, &kinds);
    } else {
        st = ngx_http_jwtk_publish(r->pool, keys, jctx, &kinds);
    }

    ngx_log_debug1(NGX_LOG_DEBUG_HTTP, r->connection->log, 0,
                   "jwtk: key documents loaded: %s", jwtk_status_name(st));

    if (st != JWTK_OK) {
        ngx_log_error(NGX_LOG_ERR, r->connection->log, 0,
                      "jwtk: %s: %s (%s)",
                      ctx->set != NULL ? "key sources" :
                      "auth_jwt_key_request", jwtk_ctx_errmsg(jctx),
                      jwtk_status_name(st));
        ngx_http_jwtk_forget(docs, n, now);
        return NGX_ERROR;
    }

    /* (without signature keys the message says why there are none: a
     * location needing some answers 500, ngx_http_jwtk_check_kinds) */
    if (jwtk_ctx_errmsg(jctx)[0] != '\0'
        && (kinds & NGX_HTTP_JWTK_KEYS_VERIFY))
    {
        ngx_log_error(NGX_LOG_WARN, r->connection->log, 0,
                      "jwtk: key sources: keys skipped or loaded with a "
                      "warning: %s",
                      jwtk_ctx_errmsg(jctx));
    }

    return NGX_OK;
}


/*
 * An unknown kid may mean the keys rotated: fetch every key subrequest
 * again, at most once per cooldown per worker (and per key set). 0: no key
 * subrequests, or within the cooldown.
 */
ngx_uint_t
ngx_http_jwtk_refetch_for_kid(ngx_http_jwtk_policy_t *policy,
    ngx_http_jwtk_ctx_t *ctx)
{
    time_t   now = ngx_time();
    time_t  *last;

    if (!policy->keys->subrequests) {
        return 0;
    }

    last = ctx->set != NULL ? &ctx->set->kid_refetch
                            : &policy->keys->kid_refetch;

    if (now - *last < NGX_HTTP_JWTK_KID_COOLDOWN) {
        return 0;
    }

    *last = now;

    return 1;
}


/* The subrequest's answer: its status and the body the capture took. Kept
 * in worker memory only if it changed. */
static ngx_int_t
ngx_http_jwtk_key_request_done(ngx_http_request_t *sr, void *data,
    ngx_int_t rc)
{
    ngx_http_jwtk_ctx_t          *ctx = data;
    ngx_http_jwtk_key_request_t  *kr = ctx->fetching;
    ngx_http_jwtk_capture_t      *cap;

    cap = ngx_http_get_module_ctx(sr, ngx_http_jwtk_module);

    if (kr == NULL || ctx->key_result != NGX_AGAIN) {
        return rc;
    }

    ctx->key_result = NGX_ERROR;

    if (kr->in_flight == ctx->asked) {
        kr->in_flight = 0;
    }

    if (rc != NGX_OK || sr->headers_out.status < 200
        || sr->headers_out.status > 299 || cap == NULL || cap->too_big
        || cap->len == 0)
    {
        ngx_log_error(NGX_LOG_ERR, sr->connection->log, 0,
                      "jwtk: auth_jwt_key_request \"%V\" answered %ui "
                      "(rc %i)%s", &kr->uri, sr->headers_out.status, rc,
                      cap == NULL || cap->len == 0 ? " with no body"
                      : cap->too_big ? " with a body above 16 MiB" : "");
        kr->failed = ngx_time();
        return rc;
    }

    if (kr->body != NULL && ctx->asked < kr->asked) {
        /* an answer older than the one held (it was slower): the held one
         * stays */
        ctx->key_result = NGX_OK;
        return rc;
    }

    kr->asked = ctx->asked;

    if (kr->body == NULL || kr->len != cap->len
        || ngx_memcmp(kr->body, cap->body, cap->len) != 0)
    {
        if (kr->body != NULL) {
            ngx_free(kr->body);
        }

        /* handed over: the capture's cleanup no longer frees it */
        kr->body = cap->body;
        kr->len = cap->len;
        cap->body = NULL;
        ctx->fetched = 1;
    }

    kr->fetched = ngx_time();
    kr->failed = 0;
    ctx->key_result = NGX_OK;

    return rc;
}


/*
 * The kinds of key a location's tokens need from the documents of its key
 * files and key subrequests: signature keys for signed and nested tokens
 * (unless a key URL brings them: jwtk_key_url, jwtk_oidc or a provider's
 * own), decryption keys for encrypted and nested ones.
 */
ngx_uint_t
ngx_http_jwtk_kinds_needed(ngx_http_jwtk_loc_conf_t *conf)
{
    ngx_uint_t  need = 0;

    if (conf->type != NGX_HTTP_JWTK_TYPE_ENCRYPTED && !conf->keys->pull) {
        need |= NGX_HTTP_JWTK_KEYS_VERIFY;
    }

    if (conf->type != NGX_HTTP_JWTK_TYPE_SIGNED) {
        need |= NGX_HTTP_JWTK_KEYS_DECRYPT;
    }

    return need;
}


/*
 * At configuration: a location whose key sources are all fixed key files
 * (read now), lacking a kind of key its tokens need, could never accept a
 * token: refused, naming the location, its type and its files (the error
 * seen when it is made, as for a key file that cannot be loaded). Key
 * subrequests and names with variables are read in the worker: checked per
 * request (ngx_http_jwtk_check_kinds).
 */
char *
ngx_http_jwtk_check_kinds_conf(ngx_conf_t *cf,
    ngx_http_jwtk_loc_conf_t *conf, ngx_uint_t need)
{
    static const char *const      types[] = { "signed", "encrypted",
                                              "nested" };

    ngx_http_jwtk_keys_t         *keys = conf->keys;
    ngx_http_jwtk_key_source_t  **kf;
    ngx_http_core_loc_conf_t     *clcf;
    ngx_str_t                     files, label;
    ngx_uint_t                    missing;

    missing = need & ~keys->kinds;

    if (missing == 0 || keys->requests != NULL || keys->sources != NULL) {
        return NGX_CONF_OK;
    }

    clcf = ngx_http_conf_get_module_loc_conf(cf, ngx_http_core_module);
    label = clcf->name;
    if (label.len == 0) {
        ngx_str_set(&label, "(server level)");
    }

    if (keys->fixed != NULL && keys->fixed->nelts != 0) {
        kf = keys->fixed->elts;
        files = kf[0]->name;
    } else {
        ngx_str_set(&files, "(none)");
    }

    if (keys->no_verify.len == 0) {
        ngx_str_set(&keys->no_verify, "none given");
    }

    if (missing & NGX_HTTP_JWTK_KEYS_DECRYPT) {
        ngx_http_jwtk_place_error(NGX_LOG_EMERG, cf, &conf->auth_place, 0,
            "location \"%V\": auth_jwt_type %s needs decryption keys and its "
            "key files (auth_jwt_key_file \"%V\"%s) hold none: add a key "
            "file of the recipient's private keys (a JWK with \"d\", an "
            "\"oct\" key for dir or AES key wrap, a PEM private key)",
            &label, types[conf->type], &files,
            keys->fixed != NULL && keys->fixed->nelts > 1 ? " and the others"
                                                           : "");
        return NGX_CONF_ERROR;
    }

    ngx_http_jwtk_place_error(NGX_LOG_EMERG, cf, &conf->auth_place, 0,
        "location \"%V\": auth_jwt_type %s verifies signed tokens and its "
        "key files (auth_jwt_key_file \"%V\"%s) hold decryption keys only "
        "(as signature keys: %V): add a key file of the issuer's public keys "
        "beside them, or set auth_jwt_type encrypted",
        &label, types[conf->type], &files,
        keys->fixed != NULL && keys->fixed->nelts > 1 ? " and the others"
                                                       : "",
        &keys->no_verify);
    return NGX_CONF_ERROR;
}


/*
 * Per request, once the key sources read in the worker are loaded: keys
 * lacking a kind this location's tokens need (a key subrequest answering
 * decryption keys only to a signed location, a resolved key file of public
 * keys to an encrypted one) answer 500 with an error line, as NGINX Plus
 * answers keys it cannot use; never a verdict on the token.
 */
ngx_int_t
ngx_http_jwtk_check_kinds(ngx_http_request_t *r,
    ngx_http_jwtk_policy_t *policy, ngx_http_jwtk_ctx_t *ctx)
{
    ngx_uint_t  have, missing;

    have = ctx->set != NULL ? ctx->set->kinds : policy->keys->kinds;
    missing = policy->need & ~have;

    if (missing == 0) {
        return NGX_OK;
    }

    ngx_log_error(NGX_LOG_ERR, r->connection->log, 0,
                  "jwtk: location \"%V\": its key sources "
                  "(auth_jwt_key_file, auth_jwt_key_request) hold no %s "
                  "keys, which its auth_jwt_type needs: 500", &policy->label,
                  missing & NGX_HTTP_JWTK_KEYS_DECRYPT ? "decryption"
                                                       : "signature");

    return NGX_ERROR;
}
