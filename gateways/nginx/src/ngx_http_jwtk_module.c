/*
 * ngx_http_jwtk_module: the module, its directives, configuration
 * create/merge and process start.
 *
 * Directive names: auth_jwt* are NGINX Plus's, with its syntax, contexts and
 * defaults (an NGINX Plus configuration keeps its meaning); jwtk_* are
 * jwt-kernel's own (docs/NGINX.md).
 */
#include "ngx_http_jwtk_module.h"

static ngx_int_t ngx_http_jwtk_preconfiguration(ngx_conf_t *cf);
static ngx_int_t ngx_http_jwtk_postconfiguration(ngx_conf_t *cf);
static void *ngx_http_jwtk_create_main_conf(ngx_conf_t *cf);
static void *ngx_http_jwtk_create_loc_conf(ngx_conf_t *cf);
static char *ngx_http_jwtk_merge_loc_conf(ngx_conf_t *cf, void *parent,
    void *child);
static ngx_int_t ngx_http_jwtk_init_process(ngx_cycle_t *cycle);
static void ngx_http_jwtk_exit_process(ngx_cycle_t *cycle);
static char *ngx_http_jwtk_auth_jwt(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);
static char *ngx_http_jwtk_type(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);
static char *ngx_http_jwtk_require(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);
static char *ngx_http_jwtk_key_url(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);
static char *ngx_http_jwtk_words(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);


static ngx_conf_enum_t  ngx_http_jwtk_types[] = {
    { ngx_string("signed"), NGX_HTTP_JWTK_TYPE_SIGNED },
    { ngx_string("encrypted"), NGX_HTTP_JWTK_TYPE_ENCRYPTED },
    { ngx_string("nested"), NGX_HTTP_JWTK_TYPE_NESTED },
    { ngx_null_string, 0 }
};

/* jwtk_key_sets: key sets cached per location (key sources with
 * variables) */
static ngx_conf_num_bounds_t  ngx_http_jwtk_key_sets_bounds = {
    ngx_conf_check_num_bounds, 1, 4096
};

/* Per-directive data (cmd->post): which variant of a shared handler. */
static ngx_flag_t  ngx_http_jwtk_discovery = 1;      /* jwtk_oidc */
static ngx_flag_t  ngx_http_jwtk_header = 1;         /* auth_jwt_header_set */
static ngx_flag_t  ngx_http_jwtk_once = 1;           /* jwtk_provider */
static ngx_str_t   ngx_http_jwtk_equals = ngx_string("equals");
static ngx_str_t   ngx_http_jwtk_one_of = ngx_string("one_of");
static ngx_str_t   ngx_http_jwtk_contains_all = ngx_string("contains_all");
static ngx_str_t   ngx_http_jwtk_contains_any = ngx_string("contains_any");

#define JWTK_LOC  (NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF)
#define JWTK_LMT  (JWTK_LOC|NGX_HTTP_LMT_CONF)
#define JWTK_LCF  NGX_HTTP_LOC_CONF_OFFSET
#define JWTK_OFF(field)  offsetof(ngx_http_jwtk_loc_conf_t, field)


static ngx_command_t  ngx_http_jwtk_commands[] = {

    /* NGINX Plus's nine directives, with its contexts. */

    { ngx_string("auth_jwt"),
      JWTK_LMT|NGX_CONF_TAKE12,
      ngx_http_jwtk_auth_jwt,
      JWTK_LCF,
      0,
      NULL },

    { ngx_string("auth_jwt_key_file"),
      JWTK_LMT|NGX_CONF_TAKE1,
      ngx_http_jwtk_key_source,
      JWTK_LCF,
      JWTK_OFF(key_files),
      NULL },

    { ngx_string("auth_jwt_key_request"),
      JWTK_LMT|NGX_CONF_TAKE1,
      ngx_http_jwtk_key_source,
      JWTK_LCF,
      JWTK_OFF(key_requests),
      NULL },

    { ngx_string("auth_jwt_key_cache"),
      JWTK_LOC|NGX_CONF_TAKE1,
      ngx_conf_set_sec_slot,
      JWTK_LCF,
      JWTK_OFF(key_cache),
      NULL },

    { ngx_string("auth_jwt_leeway"),
      JWTK_LOC|NGX_CONF_TAKE1,
      ngx_conf_set_sec_slot,
      JWTK_LCF,
      JWTK_OFF(leeway),
      NULL },

    { ngx_string("auth_jwt_type"),
      JWTK_LMT|NGX_CONF_TAKE1,
      ngx_http_jwtk_type,
      JWTK_LCF,
      JWTK_OFF(type),
      ngx_http_jwtk_types },

    { ngx_string("auth_jwt_require"),
      JWTK_LMT|NGX_CONF_1MORE,
      ngx_http_jwtk_require,
      JWTK_LCF,
      0,
      NULL },

    { ngx_string("auth_jwt_claim_set"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_2MORE,
      ngx_http_jwtk_claim_set,
      NGX_HTTP_MAIN_CONF_OFFSET,
      0,
      NULL },

    { ngx_string("auth_jwt_header_set"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_2MORE,
      ngx_http_jwtk_claim_set,
      NGX_HTTP_MAIN_CONF_OFFSET,
      0,
      &ngx_http_jwtk_header },

    /* jwt-kernel's own. */

    { ngx_string("jwtk_key_url"),
      JWTK_LOC|NGX_CONF_1MORE,
      ngx_http_jwtk_key_url,
      JWTK_LCF,
      0,
      NULL },

    { ngx_string("jwtk_oidc"),
      JWTK_LOC|NGX_CONF_1MORE,
      ngx_http_jwtk_key_url,
      JWTK_LCF,
      0,
      &ngx_http_jwtk_discovery },

    { ngx_string("jwtk_provider"),
      JWTK_LOC|NGX_CONF_1MORE,
      ngx_http_jwtk_words,
      JWTK_LCF,
      JWTK_OFF(provider),
      &ngx_http_jwtk_once },

    { ngx_string("jwtk_issuer"),
      JWTK_LOC|NGX_CONF_1MORE,
      ngx_http_jwtk_words,
      JWTK_LCF,
      JWTK_OFF(issuers),
      NULL },

    { ngx_string("jwtk_audience"),
      JWTK_LOC|NGX_CONF_1MORE,
      ngx_http_jwtk_words,
      JWTK_LCF,
      JWTK_OFF(audiences),
      NULL },

    { ngx_string("jwtk_algorithms"),
      JWTK_LOC|NGX_CONF_1MORE,
      ngx_http_jwtk_words,
      JWTK_LCF,
      JWTK_OFF(algorithms),
      NULL },

    { ngx_string("jwtk_require_claim"),
      JWTK_LOC|NGX_CONF_1MORE,
      ngx_http_jwtk_words,
      JWTK_LCF,
      JWTK_OFF(required_claims),
      NULL },

    { ngx_string("jwtk_claim_equals"),
      JWTK_LOC|NGX_CONF_TAKE2,
      ngx_http_jwtk_claim_requirement,
      JWTK_LCF,
      0,
      &ngx_http_jwtk_equals },

    { ngx_string("jwtk_claim_one_of"),
      JWTK_LOC|NGX_CONF_2MORE,
      ngx_http_jwtk_claim_requirement,
      JWTK_LCF,
      0,
      &ngx_http_jwtk_one_of },

    { ngx_string("jwtk_claim_contains_all"),
      JWTK_LOC|NGX_CONF_2MORE,
      ngx_http_jwtk_claim_requirement,
      JWTK_LCF,
      0,
      &ngx_http_jwtk_contains_all },

    { ngx_string("jwtk_claim_contains_any"),
      JWTK_LOC|NGX_CONF_2MORE,
      ngx_http_jwtk_claim_requirement,
      JWTK_LCF,
      0,
      &ngx_http_jwtk_contains_any },

    { ngx_string("jwtk_require_exp"),
      JWTK_LOC|NGX_CONF_FLAG,
      ngx_conf_set_flag_slot,
      JWTK_LCF,
      JWTK_OFF(require_exp),
      NULL },

    { ngx_string("jwtk_cache"),
      JWTK_LOC|NGX_CONF_FLAG,
      ngx_conf_set_flag_slot,
      JWTK_LCF,
      JWTK_OFF(cache),
      NULL },

    { ngx_string("jwtk_key_sets"),
      JWTK_LOC|NGX_CONF_TAKE1,
      ngx_conf_set_num_slot,
      JWTK_LCF,
      JWTK_OFF(key_sets),
      &ngx_http_jwtk_key_sets_bounds },

    { ngx_string("jwtk_max_token_size"),
      JWTK_LOC|NGX_CONF_TAKE1,
      ngx_conf_set_size_slot,
      JWTK_LCF,
      JWTK_OFF(max_token_size),
      NULL },

    { ngx_string("jwtk_status"),
      NGX_HTTP_LOC_CONF|NGX_CONF_NOARGS,
      ngx_http_jwtk_status,
      JWTK_LCF,
      0,
      NULL },

      ngx_null_command
};


static ngx_http_module_t  ngx_http_jwtk_module_ctx = {
    ngx_http_jwtk_preconfiguration,        /* preconfiguration */
    ngx_http_jwtk_postconfiguration,       /* postconfiguration */

    ngx_http_jwtk_create_main_conf,        /* create main configuration */
    NULL,                                  /* init main configuration */

    NULL,                                  /* create server configuration */
    NULL,                                  /* merge server configuration */

    ngx_http_jwtk_create_loc_conf,         /* create location configuration */
    ngx_http_jwtk_merge_loc_conf           /* merge location configuration */
};


ngx_module_t  ngx_http_jwtk_module = {
    NGX_MODULE_V1,
    &ngx_http_jwtk_module_ctx,             /* module context */
    ngx_http_jwtk_commands,                /* module directives */
    NGX_HTTP_MODULE,                       /* module type */
    NULL,                                  /* init master */
    NULL,                                  /* init module */
    ngx_http_jwtk_init_process,            /* init process */
    NULL,                                  /* init thread */
    NULL,                                  /* exit thread */
    ngx_http_jwtk_exit_process,            /* exit process */
    NULL,                                  /* exit master */
    NGX_MODULE_V1_PADDING
};


/*
 * The worker's one jwtk_ctx (workers are single-threaded; results are copied
 * into the request pool before the handler returns, so the next request may
 * reuse it). Made in init_process; configuration has its own
 * (ngx_http_jwtk_conf_ctx).
 */
static jwtk_ctx  *ngx_http_jwtk_ctx;


jwtk_ctx *
ngx_http_jwtk_worker_ctx(void)
{
    return ngx_http_jwtk_ctx;
}


static void
ngx_http_jwtk_free_ctx(void *data)
{
    jwtk_ctx_free(data);
}


/* libjwtk's messages at configuration time: a jwtk_ctx of the
 * configuration's cycle. */
jwtk_ctx *
ngx_http_jwtk_conf_ctx(ngx_conf_t *cf)
{
    ngx_http_jwtk_main_conf_t  *mcf;
    ngx_pool_cleanup_t         *cln;

    mcf = ngx_http_conf_get_module_main_conf(cf, ngx_http_jwtk_module);
    if (mcf->conf_ctx != NULL) {
        return mcf->conf_ctx;
    }

    cln = ngx_pool_cleanup_add(cf->pool, 0);
    if (cln == NULL) {
        return NULL;
    }

    if (jwtk_ctx_new(&mcf->conf_ctx) != JWTK_OK) {
        mcf->conf_ctx = NULL;
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "jwtk: no memory for a jwtk_ctx");
        return NULL;
    }

    cln->handler = ngx_http_jwtk_free_ctx;
    cln->data = mcf->conf_ctx;

    return mcf->conf_ctx;
}


static ngx_int_t
ngx_http_jwtk_preconfiguration(ngx_conf_t *cf)
{
    if (jwtk_version_number() != JWTK_VERSION_NUMBER) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "ngx_http_jwtk_module was built with jwtk.h %s "
                           "but libjwtk %s is loaded",
                           JWTK_VERSION, jwtk_version());
        return NGX_ERROR;
    }

    return ngx_http_jwtk_add_variables(cf);
}


static void *
ngx_http_jwtk_create_main_conf(ngx_conf_t *cf)
{
    ngx_http_jwtk_main_conf_t  *mcf;

    mcf = ngx_pcalloc(cf->pool, sizeof(ngx_http_jwtk_main_conf_t));
    if (mcf == NULL) {
        return NULL;
    }

    if (ngx_array_init(&mcf->values, cf->pool, 4,
                       sizeof(ngx_http_jwtk_value_t))
        != NGX_OK
        || ngx_array_init(&mcf->policies, cf->pool, 4,
                          sizeof(ngx_http_jwtk_policy_t *))
           != NGX_OK
        || ngx_array_init(&mcf->keysets, cf->pool, 4,
                          sizeof(ngx_http_jwtk_keys_t *))
           != NGX_OK)
    {
        return NULL;
    }

    return mcf;
}


static void *
ngx_http_jwtk_create_loc_conf(ngx_conf_t *cf)
{
    ngx_http_jwtk_loc_conf_t  *conf;

    conf = ngx_pcalloc(cf->pool, sizeof(ngx_http_jwtk_loc_conf_t));
    if (conf == NULL) {
        return NULL;
    }

    /*
     * set by ngx_pcalloc():
     *
     *     conf->realm = NULL;
     *     conf->token = NULL;
     *     conf->key_url = { 0, NULL };
     *     conf->keys = NULL;
     *     conf->policy = NULL;
     */

    conf->enabled = NGX_CONF_UNSET;
    conf->type = NGX_CONF_UNSET_UINT;
    conf->key_files = NGX_CONF_UNSET_PTR;
    conf->key_requests = NGX_CONF_UNSET_PTR;
    conf->key_url_args = NGX_CONF_UNSET_PTR;
    conf->key_cache = NGX_CONF_UNSET;
    conf->key_sets = NGX_CONF_UNSET_UINT;
    conf->leeway = NGX_CONF_UNSET;
    conf->requires = NGX_CONF_UNSET_PTR;
    conf->provider = NGX_CONF_UNSET_PTR;
    conf->issuers = NGX_CONF_UNSET_PTR;
    conf->audiences = NGX_CONF_UNSET_PTR;
    conf->algorithms = NGX_CONF_UNSET_PTR;
    conf->required_claims = NGX_CONF_UNSET_PTR;
    conf->claim_requirements = NGX_CONF_UNSET_PTR;
    conf->require_exp = NGX_CONF_UNSET;
    conf->cache = NGX_CONF_UNSET;
    conf->max_token_size = NGX_CONF_UNSET_SIZE;

    return conf;
}


/* The key directives are one group: a level with any of them does not
 * inherit the others (so an inner auth_jwt_key_file replaces the outer
 * ones). */
static ngx_uint_t
ngx_http_jwtk_has_key_source(ngx_http_jwtk_loc_conf_t *c)
{
    return c->key_files != NGX_CONF_UNSET_PTR
           || c->key_requests != NGX_CONF_UNSET_PTR
           || c->key_url.len != 0;
}


static char *
ngx_http_jwtk_merge_loc_conf(ngx_conf_t *cf, void *parent, void *child)
{
    ngx_http_jwtk_loc_conf_t   *prev = parent;
    ngx_http_jwtk_loc_conf_t   *conf = child;
    ngx_http_jwtk_main_conf_t  *mcf;
    ngx_http_core_loc_conf_t   *clcf;
    char                       *rv;

    if (conf->enabled == NGX_CONF_UNSET) {
        conf->enabled = prev->enabled == NGX_CONF_UNSET ? 0 : prev->enabled;
        conf->realm = prev->realm;
        conf->token = prev->token;
        conf->auth_place = prev->auth_place;
    }

    ngx_conf_merge_uint_value(conf->type, prev->type,
                              NGX_HTTP_JWTK_TYPE_SIGNED);
    ngx_conf_merge_sec_value(conf->key_cache, prev->key_cache, 0);
    ngx_conf_merge_uint_value(conf->key_sets, prev->key_sets,
                              NGX_HTTP_JWTK_KEY_SETS);
    ngx_conf_merge_sec_value(conf->leeway, prev->leeway, 0);
    ngx_conf_merge_ptr_value(conf->requires, prev->requires, NULL);
    ngx_conf_merge_ptr_value(conf->provider, prev->provider, NULL);
    ngx_conf_merge_ptr_value(conf->issuers, prev->issuers, NULL);
    ngx_conf_merge_ptr_value(conf->audiences, prev->audiences, NULL);
    ngx_conf_merge_ptr_value(conf->algorithms, prev->algorithms, NULL);
    ngx_conf_merge_ptr_value(conf->required_claims, prev->required_claims,
                             NULL);
    ngx_conf_merge_ptr_value(conf->claim_requirements,
                             prev->claim_requirements, NULL);
    ngx_conf_merge_value(conf->require_exp, prev->require_exp, 0);
    ngx_conf_merge_value(conf->cache, prev->cache, 0);
    ngx_conf_merge_size_value(conf->max_token_size, prev->max_token_size,
                              16384);

    /* Key sources: this level's group, or the parent's (built once,
     * shared). */

    if (ngx_http_jwtk_has_key_source(conf)) {
        rv = ngx_http_jwtk_build_keys(cf, conf);
        if (rv != NGX_CONF_OK) {
            return rv;
        }

    } else {
        if (prev->keys == NULL && ngx_http_jwtk_has_key_source(prev)) {
            /* The http level is never merged itself: its group is built
             * on first use. */
            rv = ngx_http_jwtk_build_keys(cf, prev);
            if (rv != NGX_CONF_OK) {
                return rv;
            }
        }

        conf->keys = prev->keys;
        conf->key_url = prev->key_url;
        conf->key_url_args = prev->key_url_args;
        conf->key_discovery = prev->key_discovery;
    }

    if (!conf->enabled) {
        return NGX_CONF_OK;
    }

    clcf = ngx_http_conf_get_module_loc_conf(cf, ngx_http_core_module);

    if (conf->keys == NULL && conf->provider == NULL && clcf->name.len == 0) {
        /*
         * auth_jwt at the server level, its key sources in the locations
         * (as NGINX Plus allows): no verifier here; a request that no
         * location takes is refused with 500 (the access handler).
         */
        mcf = ngx_http_conf_get_module_main_conf(cf, ngx_http_jwtk_module);
        mcf->unkeyed = 1;
        return NGX_CONF_OK;
    }

    return ngx_http_jwtk_build_policy(cf, conf);
}


static ngx_int_t
ngx_http_jwtk_postconfiguration(ngx_conf_t *cf)
{
    ngx_http_handler_pt         *h;
    ngx_http_core_main_conf_t   *cmcf;
    ngx_http_jwtk_main_conf_t   *mcf;
    ngx_http_jwtk_keys_t       **keys;
    ngx_uint_t                   i;

    mcf = ngx_http_conf_get_module_main_conf(cf, ngx_http_jwtk_module);

    if (ngx_http_jwtk_collect_values(cf, mcf) != NGX_OK) {
        return NGX_ERROR;
    }

    if (mcf->policies.nelts == 0 && !mcf->unkeyed) {
        return NGX_OK;
    }

    if (ngx_http_jwtk_status_init_zone(cf, mcf) != NGX_OK) {
        return NGX_ERROR;
    }

    keys = mcf->keysets.elts;

    for (i = 0; i < mcf->keysets.nelts; i++) {
        if (keys[i]->subrequests) {
            ngx_http_jwtk_init_capture();
            break;
        }
    }

    cmcf = ngx_http_conf_get_module_main_conf(cf, ngx_http_core_module);

    h = ngx_array_push(&cmcf->phases[NGX_HTTP_ACCESS_PHASE].handlers);
    if (h == NULL) {
        return NGX_ERROR;
    }

    *h = ngx_http_jwtk_access_handler;

    return NGX_OK;
}


/* Workers (and the single process) only: never the master, the cache
 * manager or the loader. */
static ngx_int_t
ngx_http_jwtk_init_process(ngx_cycle_t *cycle)
{
    ngx_http_jwtk_main_conf_t  *mcf;

    if (ngx_process != NGX_PROCESS_WORKER
        && ngx_process != NGX_PROCESS_SINGLE)
    {
        return NGX_OK;
    }

    mcf = ngx_http_cycle_get_module_main_conf(cycle, ngx_http_jwtk_module);
    if (mcf == NULL || mcf->policies.nelts == 0) {
        return NGX_OK;
    }

    if (ngx_http_jwtk_ctx == NULL
        && jwtk_ctx_new(&ngx_http_jwtk_ctx) != JWTK_OK)
    {
        ngx_http_jwtk_ctx = NULL;
        ngx_log_error(NGX_LOG_EMERG, cycle->log, 0,
                      "jwtk: no memory for the worker's jwtk_ctx");
        return NGX_ERROR;
    }

    if (ngx_http_jwtk_start_keys(cycle, mcf) != NGX_OK) {
        return NGX_ERROR;
    }

    return ngx_http_jwtk_status_start(cycle, mcf);
}


static void
ngx_http_jwtk_exit_process(ngx_cycle_t *cycle)
{
    ngx_http_jwtk_main_conf_t  *mcf;

    mcf = ngx_http_cycle_get_module_main_conf(cycle, ngx_http_jwtk_module);

    if (mcf != NULL && mcf->policies.nelts != 0 && mcf->zone != NULL) {
        ngx_http_jwtk_status_publish(mcf);   /* this worker's last counts */
    }

    jwtk_ctx_free(ngx_http_jwtk_ctx);        /* NULL is a no-op */
    ngx_http_jwtk_ctx = NULL;
}


/* Compiles a directive argument that may hold variables into `cv` (NULL:
 * allocated here). */
static ngx_http_complex_value_t *
ngx_http_jwtk_compile(ngx_conf_t *cf, ngx_str_t *value,
    ngx_http_complex_value_t *cv)
{
    ngx_http_compile_complex_value_t  ccv;

    if (cv == NULL) {
        cv = ngx_palloc(cf->pool, sizeof(ngx_http_complex_value_t));
        if (cv == NULL) {
            return NULL;
        }
    }

    ngx_memzero(&ccv, sizeof(ngx_http_compile_complex_value_t));
    ccv.cf = cf;
    ccv.value = value;
    ccv.complex_value = cv;

    return ngx_http_compile_complex_value(&ccv) == NGX_OK ? cv : NULL;
}


/* auth_jwt "realm" [token=$variable] | off */
static char *
ngx_http_jwtk_auth_jwt(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_jwtk_loc_conf_t  *jcf = conf;

    ngx_str_t  *value = cf->args->elts;

    if (jcf->enabled != NGX_CONF_UNSET) {
        return "is duplicate";
    }

    if (cf->args->nelts == 2 && ngx_strcmp(value[1].data, "off") == 0) {
        jcf->enabled = 0;
        return NGX_CONF_OK;
    }

    jcf->enabled = 1;

    if (ngx_http_jwtk_place_here(cf, &jcf->auth_place) != NGX_OK) {
        return NGX_CONF_ERROR;
    }

    jcf->realm = ngx_http_jwtk_compile(cf, &value[1], NULL);
    if (jcf->realm == NULL) {
        return NGX_CONF_ERROR;
    }

    if (cf->args->nelts == 3) {
        if (value[2].len <= 6 || ngx_strncmp(value[2].data, "token=", 6) != 0
            || value[2].data[6] != '$')
        {
            ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                               "invalid parameter \"%V\": expected "
                               "token=$variable", &value[2]);
            return NGX_CONF_ERROR;
        }

        value[2].data += 6;
        value[2].len -= 6;

        jcf->token = ngx_http_jwtk_compile(cf, &value[2], NULL);
        if (jcf->token == NULL) {
            return NGX_CONF_ERROR;
        }
    }

    (void) cmd;

    return NGX_CONF_OK;
}


/* auth_jwt_type signed | encrypted | nested: libjwtk's "token_type"; the
 * decryption keys come from the same key sources (ngx_http_jwtk_load_keys).
 */
static char *
ngx_http_jwtk_type(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    return ngx_conf_set_enum_slot(cf, cmd, conf);
}


/* auth_jwt_require $value ... [error=401|403] */
static char *
ngx_http_jwtk_require(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_jwtk_loc_conf_t  *jcf = conf;

    ngx_str_t                 *value = cf->args->elts, *last;
    ngx_uint_t                 i, n = cf->args->nelts;
    ngx_http_jwtk_require_t   *req;
    ngx_http_complex_value_t  *cv;

    if (jcf->requires == NGX_CONF_UNSET_PTR) {
        jcf->requires = ngx_array_create(cf->pool, 2,
                                         sizeof(ngx_http_jwtk_require_t));
        if (jcf->requires == NULL) {
            return NGX_CONF_ERROR;
        }
    }

    req = ngx_array_push(jcf->requires);
    if (req == NULL) {
        return NGX_CONF_ERROR;
    }

    req->error = NGX_HTTP_UNAUTHORIZED;
    last = &value[n - 1];

    if (last->len > 6 && ngx_strncmp(last->data, "error=", 6) == 0) {

        if (last->len == 9 && ngx_strncmp(last->data + 6, "401", 3) == 0) {
            req->error = NGX_HTTP_UNAUTHORIZED;

        } else if (last->len == 9
                   && ngx_strncmp(last->data + 6, "403", 3) == 0)
        {
            req->error = NGX_HTTP_FORBIDDEN;

        } else {
            ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                               "invalid parameter \"%V\": error=401 or "
                               "error=403", last);
            return NGX_CONF_ERROR;
        }

        n--;

        if (n < 2) {
            return "needs at least one value";
        }
    }

    req->values = ngx_array_create(cf->pool, n - 1,
                                   sizeof(ngx_http_complex_value_t));
    if (req->values == NULL) {
        return NGX_CONF_ERROR;
    }

    for (i = 1; i < n; i++) {
        if (value[i].data[0] != '$') {
            ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                               "invalid value \"%V\": it must start with a "
                               "variable", &value[i]);
            return NGX_CONF_ERROR;
        }

        cv = ngx_array_push(req->values);
        if (cv == NULL || ngx_http_jwtk_compile(cf, &value[i], cv) == NULL) {
            return NGX_CONF_ERROR;
        }
    }

    (void) cmd;

    return NGX_CONF_OK;
}


/*
 * jwtk_key_url URL [cooldown=TIME] [max_staleness=TIME] [refresh_min=TIME]
 *     [refresh_max=TIME];
 * jwtk_oidc ISSUER [the same]; the key URL found by OpenID Connect
 *     discovery (cmd->post: ngx_http_jwtk_discovery)
 */
static char *
ngx_http_jwtk_key_url(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_jwtk_loc_conf_t  *jcf = conf;

    ngx_str_t   *value = cf->args->elts, *arg;
    ngx_uint_t   i;

    if (jcf->key_url.len != 0) {
        return "is duplicate (one of jwtk_key_url and jwtk_oidc per level)";
    }

    jcf->key_url = value[1];
    jcf->key_discovery = cmd->post != NULL;

    jcf->key_url_args = ngx_array_create(cf->pool, 4, sizeof(ngx_str_t));
    if (jcf->key_url_args == NULL) {
        return NGX_CONF_ERROR;
    }

    for (i = 2; i < cf->args->nelts; i++) {
        arg = ngx_array_push(jcf->key_url_args);
        if (arg == NULL) {
            return NGX_CONF_ERROR;
        }

        *arg = value[i];
    }

    return NGX_CONF_OK;
}


/* A directive's words, as a list (jwtk_issuer a b; jwtk_issuer c;
 * appends); cmd->post set: once per level (jwtk_provider). */
static char *
ngx_http_jwtk_words(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_array_t  **list = (ngx_array_t **) ((char *) conf + cmd->offset);

    ngx_str_t   *value = cf->args->elts, *s;
    ngx_uint_t   i;

    if (*list == NGX_CONF_UNSET_PTR) {
        *list = ngx_array_create(cf->pool, 4, sizeof(ngx_str_t));
        if (*list == NULL) {
            return NGX_CONF_ERROR;
        }

    } else if (cmd->post != NULL) {
        return "is duplicate";
    }

    for (i = 1; i < cf->args->nelts; i++) {
        s = ngx_array_push(*list);
        if (s == NULL) {
            return NGX_CONF_ERROR;
        }

        *s = value[i];
    }

    return NGX_CONF_OK;
}
