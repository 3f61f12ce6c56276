/*
 * Variables: $jwt_claim_<name> and $jwt_header_<name> (NGINX Plus's, a
 * top-level member each), the variables of auth_jwt_claim_set /
 * auth_jwt_header_set (a path of member names), and $jwtk_status.
 *
 * Values as NGINX Plus shows them: strings raw (decoded, not JSON-quoted),
 * numbers and booleans as their JSON text, arrays of those joined with
 * commas, objects as JSON text. A value holding a control character (CR, LF,
 * ...) has those and "%" percent-encoded, so a claim can never add a header
 * line when a variable goes into proxy_set_header (NGINX Plus passes them
 * raw).
 *
 * Which values exist is known at configuration: every variable the
 * configuration names (collected in postconfiguration from nginx's indexed
 * variables). The access handler copies exactly those into the request pool
 * after a successful verification (libjwtk's results live only until the
 * worker's next verification, and variables are read as late as the log
 * phase). A variable named only at run time (Lua's ngx.var, for example) is
 * empty: name it in the configuration. Subrequests see the main request's
 * values.
 */
#include "ngx_http_jwtk_module.h"

static ngx_int_t ngx_http_jwtk_prefix_variable(ngx_http_request_t *r,
    ngx_http_variable_value_t *v, uintptr_t data);
static ngx_int_t ngx_http_jwtk_value_variable(ngx_http_request_t *r,
    ngx_http_variable_value_t *v, uintptr_t data);
static ngx_int_t ngx_http_jwtk_status_variable(ngx_http_request_t *r,
    ngx_http_variable_value_t *v, uintptr_t data);
static ngx_int_t ngx_http_jwtk_payload_variable(ngx_http_request_t *r,
    ngx_http_variable_value_t *v, uintptr_t data);

static ngx_str_t  ngx_http_jwtk_claim_prefix = ngx_string("jwt_claim_");
static ngx_str_t  ngx_http_jwtk_header_prefix = ngx_string("jwt_header_");


ngx_int_t
ngx_http_jwtk_add_variables(ngx_conf_t *cf)
{
    ngx_http_variable_t  *v;
    ngx_str_t             status = ngx_string("jwtk_status");
    ngx_str_t             payload = ngx_string("jwt_payload");

    v = ngx_http_add_variable(cf, &ngx_http_jwtk_claim_prefix,
                              NGX_HTTP_VAR_NOCACHEABLE|NGX_HTTP_VAR_PREFIX);
    if (v == NULL) {
        return NGX_ERROR;
    }

    v->get_handler = ngx_http_jwtk_prefix_variable;

    v = ngx_http_add_variable(cf, &ngx_http_jwtk_header_prefix,
                              NGX_HTTP_VAR_NOCACHEABLE|NGX_HTTP_VAR_PREFIX);
    if (v == NULL) {
        return NGX_ERROR;
    }

    v->get_handler = ngx_http_jwtk_prefix_variable;

    v = ngx_http_add_variable(cf, &status, NGX_HTTP_VAR_NOCACHEABLE);
    if (v == NULL) {
        return NGX_ERROR;
    }

    v->get_handler = ngx_http_jwtk_status_variable;

    v = ngx_http_add_variable(cf, &payload, NGX_HTTP_VAR_NOCACHEABLE);
    if (v == NULL) {
        return NGX_ERROR;
    }

    v->get_handler = ngx_http_jwtk_payload_variable;

    return NGX_OK;
}


/* Appends a member name to a JSON Pointer: "/" and the name with "~" as
 * "~0" and "/" as "~1". */
static u_char *
ngx_http_jwtk_pointer_segment(u_char *p, ngx_str_t *name)
{
    size_t  i;

    *p++ = '/';

    for (i = 0; i < name->len; i++) {
        if (name->data[i] == '~') {
            *p++ = '~';
            *p++ = '0';

        } else if (name->data[i] == '/') {
            *p++ = '~';
            *p++ = '1';

        } else {
            *p++ = name->data[i];
        }
    }

    return p;
}


/* The value entry for `variable` (a new one unless the name has one),
 * pointing at `names`. */
static ngx_int_t
ngx_http_jwtk_add_value(ngx_conf_t *cf, ngx_http_jwtk_main_conf_t *mcf,
    ngx_str_t *variable, ngx_str_t *names, ngx_uint_t n, ngx_uint_t header,
    ngx_uint_t *index)
{
    ngx_http_jwtk_value_t  *values = mcf->values.elts, *value;
    ngx_uint_t              i;
    size_t                  len = 0;
    u_char                 *p;

    for (i = 0; i < mcf->values.nelts; i++) {
        if (values[i].variable.len == variable->len
            && ngx_strncasecmp(values[i].variable.data, variable->data,
                               variable->len)
               == 0)
        {
            *index = i;
            return NGX_DECLINED;
        }
    }

    for (i = 0; i < n; i++) {
        len += 1 + 2 * names[i].len;
    }

    value = ngx_array_push(&mcf->values);
    p = ngx_pnalloc(cf->pool, len + variable->len);
    if (value == NULL || p == NULL) {
        return NGX_ERROR;
    }

    value->header = header;
    value->variable.data = p;
    value->variable.len = variable->len;
    ngx_strlow(p, variable->data, variable->len);

    value->pointer.data = p + variable->len;
    p = value->pointer.data;

    for (i = 0; i < n; i++) {
        p = ngx_http_jwtk_pointer_segment(p, &names[i]);
    }

    value->pointer.len = p - value->pointer.data;
    *index = mcf->values.nelts - 1;

    return NGX_OK;
}


/* auth_jwt_claim_set $variable name ...;
 * auth_jwt_header_set $variable name ...; (cmd->post set: the header) */
char *
ngx_http_jwtk_claim_set(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_jwtk_main_conf_t  *mcf = conf;

    ngx_str_t            *value = cf->args->elts, name;
    ngx_http_variable_t  *v;
    ngx_uint_t            index;
    ngx_int_t             rc;

    if (value[1].len < 2 || value[1].data[0] != '$') {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "invalid variable name \"%V\"", &value[1]);
        return NGX_CONF_ERROR;
    }

    name.data = value[1].data + 1;
    name.len = value[1].len - 1;

    rc = ngx_http_jwtk_add_value(cf, mcf, &name, &value[2],
                                 cf->args->nelts - 2, cmd->post != NULL,
                                 &index);
    if (rc == NGX_DECLINED) {
        return "names a variable set twice";
    }

    if (rc != NGX_OK) {
        return NGX_CONF_ERROR;
    }

    v = ngx_http_add_variable(cf, &name, NGX_HTTP_VAR_NOCACHEABLE);
    if (v == NULL) {
        return NGX_CONF_ERROR;
    }

    v->get_handler = ngx_http_jwtk_value_variable;
    v->data = index;

    return NGX_CONF_OK;
}


/* Every $jwt_claim_* / $jwt_header_* the configuration names. */
ngx_int_t
ngx_http_jwtk_collect_values(ngx_conf_t *cf, ngx_http_jwtk_main_conf_t *mcf)
{
    ngx_http_core_main_conf_t  *cmcf;
    ngx_http_variable_t        *v;
    ngx_uint_t                  i, index, header;
    ngx_str_t                  *prefix, member;

    cmcf = ngx_http_conf_get_module_main_conf(cf, ngx_http_core_module);
    v = cmcf->variables.elts;

    for (i = 0; i < cmcf->variables.nelts; i++) {
        for (header = 0; header < 2; header++) {
            prefix = header ? &ngx_http_jwtk_header_prefix
                            : &ngx_http_jwtk_claim_prefix;

            if (v[i].name.len <= prefix->len
                || ngx_strncasecmp(v[i].name.data, prefix->data,
                                   prefix->len)
                   != 0)
            {
                continue;
            }

            member.data = v[i].name.data + prefix->len;
            member.len = v[i].name.len - prefix->len;

            if (ngx_http_jwtk_add_value(cf, mcf, &v[i].name, &member, 1,
                                        header, &index)
                == NGX_ERROR)
            {
                return NGX_ERROR;
            }
        }
    }

    return NGX_OK;
}


/* The value as a variable shows it: control characters and "%"
 * percent-encoded if any control character is present. */
static ngx_int_t
ngx_http_jwtk_store(ngx_http_request_t *r, ngx_str_t *out, jwtk_str *in)
{
    static const u_char  hex[] = "0123456789ABCDEF";

    size_t       i, extra = 0;
    ngx_uint_t   control = 0;
    u_char      *p, c;

    for (i = 0; i < in->len; i++) {
        c = (u_char) in->ptr[i];
        control |= c < 0x20 || c == 0x7f;
        extra += (c < 0x20 || c == 0x7f || c == '%') ? 2 : 0;
    }

    if (!control) {
        extra = 0;
    }

    /* + 1: never a NULL data for an empty string */
    p = ngx_pnalloc(r->pool, in->len + extra + 1);
    if (p == NULL) {
        return NGX_ERROR;
    }

    out->data = p;

    for (i = 0; i < in->len; i++) {
        c = (u_char) in->ptr[i];

        if (control && (c < 0x20 || c == 0x7f || c == '%')) {
            *p++ = '%';
            *p++ = hex[c >> 4];
            *p++ = hex[c & 0xf];

        } else {
            *p++ = c;
        }
    }

    out->len = p - out->data;

    return NGX_OK;
}


ngx_int_t
ngx_http_jwtk_copy_values(ngx_http_request_t *r,
    ngx_http_jwtk_main_conf_t *mcf, ngx_http_jwtk_ctx_t *ctx, jwtk_ctx *jctx)
{
    ngx_http_jwtk_value_t  *value = mcf->values.elts;
    ngx_uint_t              i;
    jwtk_str                found;
    int                     type, st;

    if (mcf->values.nelts == 0) {
        return NGX_OK;
    }

    ctx->values = ngx_pcalloc(r->pool, mcf->values.nelts * sizeof(ngx_str_t));
    if (ctx->values == NULL) {
        return NGX_ERROR;
    }

    for (i = 0; i < mcf->values.nelts; i++) {
        st = jwtk_claim_at(jctx, (const char *) value[i].pointer.data,
                           value[i].pointer.len,
                           JWTK_AT_JOIN
                           | (value[i].header ? JWTK_AT_HEADER : 0),
                           &found, &type);
        if (st != JWTK_OK) {
            ngx_log_error(NGX_LOG_ERR, r->connection->log, 0,
                          "jwtk: $%V: %s", &value[i].variable,
                          jwtk_errstr(st));
            continue;   /* left absent */
        }

        if (type != JWTK_JSON_NONE
            && ngx_http_jwtk_store(r, &ctx->values[i], &found) != NGX_OK)
        {
            return NGX_ERROR;
        }
    }

    ngx_log_debug1(NGX_LOG_DEBUG_HTTP, r->connection->log, 0,
                   "jwtk: %ui values copied for the variables",
                   mcf->values.nelts);

    return NGX_OK;
}


/* $jwt_payload's value, as every variable's: control characters encoded. */
ngx_int_t
ngx_http_jwtk_copy_payload(ngx_http_request_t *r, ngx_http_jwtk_ctx_t *ctx,
    jwtk_str *json)
{
    return ngx_http_jwtk_store(r, &ctx->payload, json);
}


static ngx_int_t
ngx_http_jwtk_get(ngx_http_request_t *r, ngx_http_variable_value_t *v,
    ngx_uint_t index)
{
    ngx_http_jwtk_ctx_t  *ctx;

    ctx = ngx_http_get_module_ctx(r->main, ngx_http_jwtk_module);

    if (ctx == NULL || ctx->values == NULL
        || ctx->values[index].data == NULL)
    {
        v->not_found = 1;
        return NGX_OK;
    }

    v->data = ctx->values[index].data;
    v->len = ctx->values[index].len;
    v->valid = 1;
    v->no_cacheable = 1;
    v->not_found = 0;

    return NGX_OK;
}


static ngx_int_t
ngx_http_jwtk_value_variable(ngx_http_request_t *r,
    ngx_http_variable_value_t *v, uintptr_t data)
{
    return ngx_http_jwtk_get(r, v, data);
}


/* data: the whole variable's name (ngx_str_t *), as nginx passes it to
 * prefix variables. */
static ngx_int_t
ngx_http_jwtk_prefix_variable(ngx_http_request_t *r,
    ngx_http_variable_value_t *v, uintptr_t data)
{
    ngx_str_t                  *name = (ngx_str_t *) data;
    ngx_http_jwtk_main_conf_t  *mcf;
    ngx_http_jwtk_value_t      *value;
    ngx_uint_t                  i;

    mcf = ngx_http_get_module_main_conf(r, ngx_http_jwtk_module);
    value = mcf->values.elts;

    for (i = 0; i < mcf->values.nelts; i++) {
        if (value[i].variable.len == name->len
            && ngx_strncasecmp(value[i].variable.data, name->data, name->len)
               == 0)
        {
            return ngx_http_jwtk_get(r, v, i);
        }
    }

    v->not_found = 1;

    return NGX_OK;
}


/* $jwtk_status: libjwtk's name of the verdict ("ok", "expired", ...) or the
 * module's own. */
static ngx_int_t
ngx_http_jwtk_status_variable(ngx_http_request_t *r,
    ngx_http_variable_value_t *v, uintptr_t data)
{
    ngx_http_jwtk_ctx_t  *ctx;
    const char           *name;

    ctx = ngx_http_get_module_ctx(r->main, ngx_http_jwtk_module);

    if (ctx == NULL || !ctx->done) {
        v->not_found = 1;
        return NGX_OK;
    }

    if (ctx->status == JWTK_OK) {
        name = ctx->answer == NGX_OK ? "ok" : "require_failed";

    } else if (ctx->status >= 0) {
        name = jwtk_status_name((int) ctx->status);

    } else if (ctx->answer == NGX_HTTP_INTERNAL_SERVER_ERROR) {
        name = "key_source_failed";

    } else {
        name = "missing_token";
    }

    v->data = (u_char *) name;
    v->len = ngx_strlen(name);
    v->valid = 1;
    v->no_cacheable = 1;
    v->not_found = 0;

    (void) data;

    return NGX_OK;
}


/* $jwt_payload (NGINX Plus's): the decrypted claims of an encrypted token
 * (auth_jwt_type encrypted). */
static ngx_int_t
ngx_http_jwtk_payload_variable(ngx_http_request_t *r,
    ngx_http_variable_value_t *v, uintptr_t data)
{
    ngx_http_jwtk_ctx_t  *ctx;

    ctx = ngx_http_get_module_ctx(r->main, ngx_http_jwtk_module);

    if (ctx == NULL || ctx->payload.data == NULL) {
        v->not_found = 1;
        return NGX_OK;
    }

    v->data = ctx->payload.data;
    v->len = ctx->payload.len;
    v->valid = 1;
    v->no_cacheable = 1;
    v->not_found = 0;

    (void) data;

    return NGX_OK;
}
