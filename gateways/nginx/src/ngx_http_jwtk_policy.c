/*
 * The verifier of a location that enables auth_jwt: its configuration is
 * libjwtk's JSON (jwtk.h, jwtk_verifier_new), written here from the merged
 * directives, so every check stays libjwtk's and an error message names the
 * directive's meaning in libjwtk's words.
 */
#include "ngx_http_jwtk_module.h"

static void ngx_http_jwtk_free_verifier(void *data);

typedef struct {
    ngx_pool_t *pool;
    u_char     *data;
    size_t      len, cap;
    ngx_uint_t  failed;
} ngx_http_jwtk_json_t;


static void
ngx_http_jwtk_append(ngx_http_jwtk_json_t *j, const u_char *s, size_t n)
{
    u_char *p;

    if (j->failed) {
        return;
    }
    if (j->len + n > j->cap) {
        j->cap = ngx_max(2 * j->cap, j->len + n + 256);
        p = ngx_pnalloc(j->pool, j->cap);
        if (p == NULL) {
            j->failed = 1;
            return;
        }
        if (j->len) {
            ngx_memcpy(p, j->data, j->len);
        }
        j->data = p;
    }
    ngx_memcpy(j->data + j->len, s, n);
    j->len += n;
}

#define ngx_http_jwtk_literal(j, s)                                          \
    ngx_http_jwtk_append(j, (const u_char *) s, sizeof(s) - 1)


/*
 * A JSON string: nginx's own ngx_escape_json (", \ and control
 * characters escaped), measured first. Config text is bytes: libjwtk checks
 * that it is UTF-8 and says so.
 */
static void
ngx_http_jwtk_append_string(ngx_http_jwtk_json_t *j, const u_char *s, size_t n)
{
    size_t   extra;
    u_char  *p;

    extra = ngx_escape_json(NULL, (u_char *) s, n);

    ngx_http_jwtk_literal(j, "\"");

    if (extra == 0) {
        ngx_http_jwtk_append(j, s, n);

    } else {
        p = ngx_pnalloc(j->pool, n + extra);
        if (p == NULL) {
            j->failed = 1;
            return;
        }

        ngx_escape_json(p, (u_char *) s, n);
        ngx_http_jwtk_append(j, p, n + extra);
    }

    ngx_http_jwtk_literal(j, "\"");
}


/*
 * The inside of a quoted string (an HTTP quoted-string, a JSON string, a
 * Prometheus label value) for text the module controls (realms, location
 * names): '"' and '\\' escaped, control bytes dropped, at most up to `last`.
 */
u_char *
ngx_http_jwtk_quote(u_char *p, u_char *last, const u_char *s, size_t n)
{
    size_t i;

    for (i = 0; i < n && p + 2 <= last; i++) {
        if (s[i] < 0x20 || s[i] == 0x7f) {
            continue;
        }
        if (s[i] == '"' || s[i] == '\\') {
            *p++ = '\\';
        }
        *p++ = s[i];
    }
    return p;
}


static void
ngx_http_jwtk_member(ngx_http_jwtk_json_t *j, const char *name)
{
    if (j->len > 1) {
        ngx_http_jwtk_literal(j, ",");
    }
    ngx_http_jwtk_append_string(j, (const u_char *) name, ngx_strlen(name));
    ngx_http_jwtk_literal(j, ":");
}


static void
ngx_http_jwtk_member_list(ngx_http_jwtk_json_t *j, const char *name,
    ngx_array_t *list)
{
    ngx_str_t  *s;
    ngx_uint_t  i;

    if (list == NULL) {
        return;
    }
    ngx_http_jwtk_member(j, name);
    ngx_http_jwtk_literal(j, "[");
    s = list->elts;
    for (i = 0; i < list->nelts; i++) {
        if (i) {
            ngx_http_jwtk_literal(j, ",");
        }
        ngx_http_jwtk_append_string(j, s[i].data, s[i].len);
    }
    ngx_http_jwtk_literal(j, "]");
}


static void
ngx_http_jwtk_member_number(ngx_http_jwtk_json_t *j, const char *name, off_t n)
{
    u_char buf[NGX_OFF_T_LEN];

    ngx_http_jwtk_member(j, name);
    ngx_http_jwtk_append(j, buf, ngx_sprintf(buf, "%O", n) - buf);
}


/*
 * NAME=VALUE words (jwtk_provider's project_id=, jwtk_key_url's cooldown=):
 * a string member, or a number of seconds when `seconds` (nginx time syntax:
 * 30s, 10m, 1d).
 */
static char *
ngx_http_jwtk_member_word(ngx_conf_t *cf, ngx_http_jwtk_json_t *j,
    ngx_str_t *word, const char *const *names, ngx_uint_t seconds)
{
    ngx_uint_t  i;
    size_t      n;
    ngx_str_t   value;
    time_t      t;

    for (i = 0; names[i] != NULL; i++) {
        n = ngx_strlen(names[i]);
        if (word->len > n + 1 && ngx_strncmp(word->data, names[i], n) == 0
            && word->data[n] == '=')
        {
            value.data = word->data + n + 1;
            value.len = word->len - n - 1;
            if (!seconds) {
                ngx_http_jwtk_member(j, names[i]);
                ngx_http_jwtk_append_string(j, value.data, value.len);
                return NGX_CONF_OK;
            }
            t = ngx_parse_time(&value, 1);
            if (t == (time_t) NGX_ERROR) {
                ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                                   "invalid time in \"%V\"", word);
                return NGX_CONF_ERROR;
            }
            ngx_http_jwtk_member_number(j, names[i], t);
            return NGX_CONF_OK;
        }
    }
    ngx_conf_log_error(NGX_LOG_EMERG, cf, 0, "invalid parameter \"%V\"", word);
    return NGX_CONF_ERROR;
}


static void
ngx_http_jwtk_free_verifier(void *data)
{
    jwtk_verifier_free(data);
}


static void
ngx_http_jwtk_member_flag(ngx_http_jwtk_json_t *j, const char *name,
    ngx_flag_t on)
{
    ngx_http_jwtk_member(j, name);

    if (on) {
        ngx_http_jwtk_literal(j, "true");

    } else {
        ngx_http_jwtk_literal(j, "false");
    }
}


/* The refusals before any JSON is written. */
static char *
ngx_http_jwtk_check_sources(ngx_conf_t *cf, ngx_http_jwtk_loc_conf_t *conf)
{
    if (conf->keys == NULL && conf->provider == NULL) {
        ngx_http_jwtk_place_error(NGX_LOG_EMERG, cf, &conf->auth_place, 0,
                                  "auth_jwt without a key source: add "
                                  "auth_jwt_key_file, auth_jwt_key_request, "
                                  "jwtk_key_url or jwtk_provider (NGINX Plus "
                                  "would skip the signature check here; "
                                  "jwt-kernel refuses to)");
        return NGX_CONF_ERROR;
    }

    if (conf->key_url.len != 0 && !conf->key_discovery
        && conf->issuers == NULL && conf->provider == NULL)
    {
        ngx_http_jwtk_place_error(NGX_LOG_EMERG, cf, &conf->auth_place, 0,
                                  "jwtk_key_url needs jwtk_issuer or "
                                  "jwtk_provider: the fetched keys are the "
                                  "issuer's");
        return NGX_CONF_ERROR;
    }

    if (conf->keys == NULL && ngx_http_jwtk_build_keys(cf, conf) != NGX_CONF_OK)
    {
        /* a provider's own key URL: an empty keystore it fills */
        return NGX_CONF_ERROR;
    }

    if (conf->keys->sources != NULL
        && (conf->key_url.len != 0 || conf->provider != NULL))
    {
        /* A key set chosen per request holds the key files' and
         * subrequests' documents only, not what libjwtk's refresher
         * fetches into the level's keystore. */
        ngx_http_jwtk_place_error(NGX_LOG_EMERG, cf, &conf->auth_place, 0,
                                  "key sources with variables cannot be "
                                  "combined with jwtk_key_url, jwtk_oidc or "
                                  "jwtk_provider at one level");
        return NGX_CONF_ERROR;
    }

    return NGX_CONF_OK;
}


char *
ngx_http_jwtk_build_policy(ngx_conf_t *cf, ngx_http_jwtk_loc_conf_t *conf)
{
    static const char *const  provider_words[] = {
        "project_id", "tenant_id", NULL
    };
    static const char *const  url_words[] = {
        "cooldown", "max_staleness", "refresh_min", "refresh_max", NULL
    };

    ngx_http_jwtk_json_t        j = { cf->pool, NULL, 0, 0, 0 };
    ngx_http_jwtk_main_conf_t  *mcf;
    ngx_http_core_loc_conf_t   *clcf;
    ngx_http_jwtk_policy_t     *policy, **slot;
    ngx_pool_cleanup_t         *cln;
    ngx_str_t                  *w, json;
    ngx_uint_t                  i, need;
    jwtk_ctx                   *ctx;
    int                         st;

    if (ngx_http_jwtk_check_sources(cf, conf) != NGX_CONF_OK) {
        return NGX_CONF_ERROR;
    }

    ngx_http_jwtk_literal(&j, "{");

    if (conf->provider != NULL) {
        w = conf->provider->elts;
        ngx_http_jwtk_member(&j, "provider");
        ngx_http_jwtk_append_string(&j, w[0].data, w[0].len);

        for (i = 1; i < conf->provider->nelts; i++) {
            if (ngx_http_jwtk_member_word(cf, &j, &w[i], provider_words, 0)
                != NGX_CONF_OK)
            {
                return NGX_CONF_ERROR;
            }
        }

        if (conf->key_url.len == 0 && conf->keys->files == NULL
            && conf->keys->requests == NULL)
        {
            /* the preset's own key URL */
            ngx_http_jwtk_member_flag(&j, "pull", 1);
            conf->keys->pull = 1;
        }
    }

    if (conf->key_discovery && conf->issuers == NULL) {
        /* jwtk_oidc's issuer is the location's issuer */
        ngx_http_jwtk_member(&j, "issuers");
        ngx_http_jwtk_literal(&j, "[");
        ngx_http_jwtk_append_string(&j, conf->key_url.data,
                                    conf->key_url.len);
        ngx_http_jwtk_literal(&j, "]");
    }

    ngx_http_jwtk_member_list(&j, "issuers", conf->issuers);
    ngx_http_jwtk_member_list(&j, "audiences", conf->audiences);
    ngx_http_jwtk_member_list(&j, "algorithms", conf->algorithms);
    ngx_http_jwtk_member_list(&j, "required_claims", conf->required_claims);

    if (conf->claim_requirements != NULL) {
        ngx_http_jwtk_member(&j, "claims");
        ngx_http_jwtk_literal(&j, "[");
        w = conf->claim_requirements->elts;

        for (i = 0; i < conf->claim_requirements->nelts; i++) {
            if (i) {
                ngx_http_jwtk_literal(&j, ",");
            }
            ngx_http_jwtk_append(&j, w[i].data, w[i].len);
        }

        ngx_http_jwtk_literal(&j, "]");
    }

    if (conf->type != NGX_HTTP_JWTK_TYPE_SIGNED) {
        ngx_http_jwtk_member(&j, "token_type");
        if (conf->type == NGX_HTTP_JWTK_TYPE_NESTED) {
            ngx_http_jwtk_literal(&j, "\"nested\"");
        } else {
            ngx_http_jwtk_literal(&j, "\"encrypted\"");
        }
    }

    ngx_http_jwtk_member_number(&j, "leeway", conf->leeway);
    ngx_http_jwtk_member_flag(&j, "require_exp", conf->require_exp);
    ngx_http_jwtk_member_flag(&j, "cache", conf->cache);
    ngx_http_jwtk_member_number(&j, "max_token_size", conf->max_token_size);

    /* no threads in a worker for batches */
    ngx_http_jwtk_member_number(&j, "batch_threads", 1);

    if (conf->key_url.len != 0) {
        if (conf->key_discovery) {
            ngx_http_jwtk_member_flag(&j, "discovery", 1);

        } else {
            ngx_http_jwtk_member(&j, "jwks_url");
            ngx_http_jwtk_append_string(&j, conf->key_url.data,
                                        conf->key_url.len);
        }

        w = conf->key_url_args->elts;

        for (i = 0; i < conf->key_url_args->nelts; i++) {
            if (ngx_http_jwtk_member_word(cf, &j, &w[i], url_words, 1)
                != NGX_CONF_OK)
            {
                return NGX_CONF_ERROR;
            }
        }

        conf->keys->pull = 1;
    }

    ngx_http_jwtk_literal(&j, "}");

    if (j.failed) {
        return NGX_CONF_ERROR;
    }

    /* (after the key URL, which brings signature keys, is known) */
    need = ngx_http_jwtk_kinds_needed(conf);

    if (ngx_http_jwtk_check_kinds_conf(cf, conf, need) != NGX_CONF_OK) {
        return NGX_CONF_ERROR;
    }

    policy = ngx_pcalloc(cf->pool, sizeof(ngx_http_jwtk_policy_t));
    cln = ngx_pool_cleanup_add(cf->pool, 0);
    ctx = ngx_http_jwtk_conf_ctx(cf);
    if (policy == NULL || cln == NULL || ctx == NULL) {
        return NGX_CONF_ERROR;
    }

    st = jwtk_verifier_new_ex((const char *) j.data, j.len,
                              conf->keys->keystore, ctx, &policy->verifier);
    if (st != JWTK_OK) {
        ngx_http_jwtk_place_error(NGX_LOG_EMERG, cf, &conf->auth_place, 0,
                                  "auth_jwt: %s (%s)", jwtk_ctx_errmsg(ctx),
                                  jwtk_status_name(st));
        return NGX_CONF_ERROR;
    }

    cln->handler = ngx_http_jwtk_free_verifier;
    cln->data = policy->verifier;

    clcf = ngx_http_conf_get_module_loc_conf(cf, ngx_http_core_module);

    if (clcf->name.len != 0) {
        policy->label = clcf->name;
    } else {
        ngx_str_set(&policy->label, "server");
    }

    policy->keys = conf->keys;
    policy->cache = conf->key_cache;
    policy->need = need;

    json.data = j.data;
    json.len = j.len;

    if (ngx_http_jwtk_init_sets(cf, policy, &json, conf->key_sets)
        != NGX_OK)
    {
        return NGX_CONF_ERROR;
    }

    if (conf->keys->first == NULL) {
        conf->keys->first = policy->verifier;
    }

    conf->policy = policy;

    mcf = ngx_http_conf_get_module_main_conf(cf, ngx_http_jwtk_module);

    slot = ngx_array_push(&mcf->policies);
    if (slot == NULL) {
        return NGX_CONF_ERROR;
    }

    *slot = policy;

    return NGX_CONF_OK;
}


/* A JSON number (RFC 8259 section 6), the whole of s[0..n). */
static ngx_uint_t
ngx_http_jwtk_is_number(const u_char *s, size_t n)
{
    size_t i = 0, d;

    if (i < n && s[i] == '-') {
        i++;
    }
    if (i < n && s[i] == '0') {
        i++;
    } else {
        for (d = i; i < n && s[i] >= '0' && s[i] <= '9'; i++) { /* void */ }
        if (i == d) {
            return 0;
        }
    }
    if (i < n && s[i] == '.') {
        for (d = ++i; i < n && s[i] >= '0' && s[i] <= '9'; i++) { /* void */ }
        if (i == d) {
            return 0;
        }
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) {
            i++;
        }
        for (d = i; i < n && s[i] >= '0' && s[i] <= '9'; i++) { /* void */ }
        if (i == d) {
            return 0;
        }
    }
    return i == n;
}


/*
 * jwtk_claim_equals POINTER VALUE;
 * jwtk_claim_one_of / _contains_all / _contains_any POINTER VALUE ...;
 * (cmd->post: the condition's name). A libjwtk "claims" entry:
 * {"pointer": ..., "<condition>": ...}. A value is JSON when it reads as
 * true, false, a JSON number or a "quoted" string (write '"true"' for the
 * string), as the CLI's --claim-* options read it; anything else is a
 * string. A level with any of these replaces the inherited ones.
 */
char *
ngx_http_jwtk_claim_requirement(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_str_t                 *condition = cmd->post;
    ngx_uint_t                 set;
    ngx_http_jwtk_loc_conf_t  *jcf = conf;
    ngx_http_jwtk_json_t       j = { cf->pool, NULL, 0, 0, 0 };
    ngx_str_t                 *value = cf->args->elts, *entry;
    ngx_uint_t                 i;
    u_char                    *v;
    size_t                     n;

    if (jcf->claim_requirements == NGX_CONF_UNSET_PTR) {
        jcf->claim_requirements = ngx_array_create(cf->pool, 4,
                                                   sizeof(ngx_str_t));
        if (jcf->claim_requirements == NULL) {
            return NGX_CONF_ERROR;
        }
    }
    ngx_http_jwtk_literal(&j, "{\"pointer\":");
    ngx_http_jwtk_append_string(&j, value[1].data, value[1].len);
    ngx_http_jwtk_literal(&j, ",");
    ngx_http_jwtk_append_string(&j, condition->data, condition->len);
    ngx_http_jwtk_literal(&j, ":");
    set = (condition->len != 6
           || ngx_strncmp(condition->data, "equals", 6) != 0);
    if (set) {
        ngx_http_jwtk_literal(&j, "[");
    }
    for (i = 2; i < cf->args->nelts; i++) {
        if (i > 2) {
            ngx_http_jwtk_literal(&j, ",");
        }
        v = value[i].data;
        n = value[i].len;
        if ((n == 4 && ngx_strncmp(v, "true", 4) == 0)
            || (n == 5 && ngx_strncmp(v, "false", 5) == 0)
            || ngx_http_jwtk_is_number(v, n)
            || (n >= 2 && v[0] == '"' && v[n - 1] == '"'))
        {
            /* JSON as written; libjwtk checks it */
            ngx_http_jwtk_append(&j, v, n);
        } else {
            ngx_http_jwtk_append_string(&j, v, n);
        }
    }
    if (set) {
        ngx_http_jwtk_literal(&j, "]");
    }
    ngx_http_jwtk_literal(&j, "}");
    entry = ngx_array_push(jcf->claim_requirements);
    if (j.failed || entry == NULL) {
        return NGX_CONF_ERROR;
    }
    entry->data = j.data;
    entry->len = j.len;
    return NGX_CONF_OK;
}
