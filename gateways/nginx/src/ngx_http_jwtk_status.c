/*
 * Counters summed over every worker, in a shared-memory zone
 * ("jwtk_status"), served by a location with `jwtk_status;` as JSON or, with
 * ?format=prometheus, as Prometheus text.
 *
 * The counting itself is libjwtk's (jwtk_stats_get per verifier and
 * keystore, counted per process): each worker adds what its counters grew
 * by since its last publication into the zone, once a second (a cancelable
 * timer), when it serves the status location and when it exits. The zone
 * keeps the sums by label (the location's name) across reloads, so they
 * never go back. Only what the module decides itself (no token,
 * auth_jwt_require, a failing key source, a key set evicted) is counted here
 * directly. Names follow Envoy's jwt_authn statistics where they fit
 * (allowed, denied, jwks_fetch_success, jwks_fetch_failed, jwt_cache_hit,
 * jwt_cache_miss).
 */
#include "ngx_http_jwtk_module.h"

#define NGX_HTTP_JWTK_ENTRIES    256
#define NGX_HTTP_JWTK_LABEL      120
#define NGX_HTTP_JWTK_NO_SLOT    ((ngx_uint_t) -1)
#define NGX_HTTP_JWTK_LOCATION   0
#define NGX_HTTP_JWTK_KEYS       1

/* Counter indexes of an entry. */
enum {
    C_ALLOWED, C_DENIED, C_CACHE_HIT, C_CACHE_MISS,

    /* the module's own */
    C_MISSING, C_REQUIRE, C_KEY_SOURCE, C_EVICTED,

    C_LOADS, C_LOAD_FAILURES, C_FETCHES, C_FETCH_FAILURES, C_KID_REFRESHES,
    C_KID_SUPPRESSED, C_STALE, C_NOT_MODIFIED, C_DISC_FETCHES,
    C_DISC_FAILURES,

    /* gauges: the last worker's value */
    G_KEYS_LOADED, G_KEYS_REJECTED, G_LAST_SUCCESS, G_WITHOUT_KEYS,

    /* + JWTK_STATS_STATUS_SLOTS */
    C_BY_STATUS,
    C_COUNT = C_BY_STATUS + JWTK_STATS_STATUS_SLOTS
};

typedef struct {
    u_char        label[NGX_HTTP_JWTK_LABEL];
    size_t        label_len;
    ngx_uint_t    kind;
    ngx_atomic_t  c[C_COUNT];
} ngx_http_jwtk_entry_t;

typedef struct {
    ngx_uint_t             n;
    ngx_http_jwtk_entry_t  e[NGX_HTTP_JWTK_ENTRIES];
} ngx_http_jwtk_table_t;

/* this worker's view of the zone */
static ngx_http_jwtk_table_t  *ngx_http_jwtk_table;
static ngx_str_t  ngx_http_jwtk_zone_name = ngx_string("jwtk_status");


static ngx_int_t
ngx_http_jwtk_init_zone(ngx_shm_zone_t *zone, void *data)
{
    ngx_slab_pool_t  *shpool;

    if (data != NULL) {
        /* a reload: keep the sums */
        zone->data = data;
        return NGX_OK;
    }

    shpool = (ngx_slab_pool_t *) zone->shm.addr;

    if (zone->shm.exists) {
        zone->data = shpool->data;
        return NGX_OK;
    }

    zone->data = ngx_slab_calloc(shpool, sizeof(ngx_http_jwtk_table_t));
    if (zone->data == NULL) {
        return NGX_ERROR;
    }

    shpool->data = zone->data;

    return NGX_OK;
}


ngx_int_t
ngx_http_jwtk_status_init_zone(ngx_conf_t *cf,
    ngx_http_jwtk_main_conf_t *mcf)
{
    size_t  size;

    size = ngx_align(sizeof(ngx_http_jwtk_table_t) + 64 * 1024,
                     ngx_pagesize);

    mcf->zone = ngx_shared_memory_add(cf, &ngx_http_jwtk_zone_name, size,
                                      &ngx_http_jwtk_module);
    if (mcf->zone == NULL) {
        return NGX_ERROR;
    }

    mcf->zone->init = ngx_http_jwtk_init_zone;

    return NGX_OK;
}


static ngx_uint_t
ngx_http_jwtk_slot(ngx_shm_zone_t *zone, ngx_uint_t kind, ngx_str_t *label,
    ngx_log_t *log)
{
    ngx_slab_pool_t        *shpool = (ngx_slab_pool_t *) zone->shm.addr;
    ngx_http_jwtk_table_t  *t = zone->data;
    ngx_http_jwtk_entry_t  *e;
    ngx_uint_t              i, slot = NGX_HTTP_JWTK_NO_SLOT;
    size_t                  len = ngx_min(label->len, NGX_HTTP_JWTK_LABEL);

    ngx_shmtx_lock(&shpool->mutex);

    for (i = 0; i < t->n; i++) {
        e = &t->e[i];

        if (e->kind == kind && e->label_len == len
            && ngx_memcmp(e->label, label->data, len) == 0)
        {
            slot = i;
            break;
        }
    }

    if (slot == NGX_HTTP_JWTK_NO_SLOT && t->n < NGX_HTTP_JWTK_ENTRIES) {
        slot = t->n;
        e = &t->e[slot];
        ngx_memcpy(e->label, label->data, len);
        e->label_len = len;
        e->kind = kind;
        ngx_memory_barrier();
        t->n++;
    }

    ngx_shmtx_unlock(&shpool->mutex);

    if (slot == NGX_HTTP_JWTK_NO_SLOT) {
        ngx_log_error(NGX_LOG_WARN, log, 0,
                      "jwtk: the status zone is full, \"%V\" is not counted",
                      label);
    }

    return slot;
}


static void
ngx_http_jwtk_publish_timer(ngx_event_t *ev)
{
    ngx_http_jwtk_status_publish(ev->data);

    if (!ngx_exiting) {
        ngx_add_timer(ev, 1000);
    }
}


ngx_int_t
ngx_http_jwtk_status_start(ngx_cycle_t *cycle, ngx_http_jwtk_main_conf_t *mcf)
{
    ngx_http_jwtk_policy_t  **p = mcf->policies.elts;
    ngx_http_jwtk_keys_t    **k = mcf->keysets.elts;
    ngx_uint_t                i;

    ngx_http_jwtk_table = mcf->zone->data;

    for (i = 0; i < mcf->policies.nelts; i++) {
        p[i]->stats_slot = ngx_http_jwtk_slot(mcf->zone,
                                              NGX_HTTP_JWTK_LOCATION,
                                              &p[i]->label, cycle->log);
        p[i]->last.struct_size = sizeof(jwtk_stats);

        /* counted from here: the master counted nothing */
        jwtk_stats_get(p[i]->verifier, &p[i]->last);
    }

    for (i = 0; i < mcf->keysets.nelts; i++) {
        k[i]->stats_slot = k[i]->first == NULL
                           ? NGX_HTTP_JWTK_NO_SLOT
                           : ngx_http_jwtk_slot(mcf->zone, NGX_HTTP_JWTK_KEYS,
                                                &k[i]->label, cycle->log);

        /*
         * The master's loads (key files) are not this worker's; a key URL's
         * fetches (the first ones already, while init_process waited for
         * them) all are, so their failures get their warning.
         */
        ngx_memzero(&k[i]->last, sizeof(jwtk_stats));
        k[i]->last.struct_size = sizeof(jwtk_stats);

        if (k[i]->first != NULL && !k[i]->pull) {
            jwtk_stats_get(k[i]->first, &k[i]->last);
        }
    }

    mcf->publish.handler = ngx_http_jwtk_publish_timer;
    mcf->publish.data = mcf;
    mcf->publish.log = cycle->log;
    mcf->publish.cancelable = 1;   /* never keeps a worker from leaving */
    ngx_add_timer(&mcf->publish, 1000);

    return NGX_OK;
}


void
ngx_http_jwtk_count(ngx_http_jwtk_policy_t *policy, ngx_uint_t what)
{
    static const ngx_uint_t  counter[] = {
        C_MISSING, C_REQUIRE, C_KEY_SOURCE, C_EVICTED
    };

    if (ngx_http_jwtk_table != NULL
        && policy->stats_slot != NGX_HTTP_JWTK_NO_SLOT)
    {
        (void) ngx_atomic_fetch_add(
            &ngx_http_jwtk_table->e[policy->stats_slot].c[counter[what]], 1);
    }
}


#define ngx_http_jwtk_add(e, i, now, last)                                   \
    if ((now) > (last)) {                                                    \
        (void) ngx_atomic_fetch_add(&(e)->c[i],                              \
                                    (ngx_atomic_int_t) ((now) - (last)));    \
    }


/* Adds what a location's verifier counted since `last` to its entry. */
static void
ngx_http_jwtk_publish_verifier(ngx_http_jwtk_policy_t *policy,
    jwtk_verifier *v, jwtk_stats *last)
{
    ngx_http_jwtk_entry_t  *e;
    jwtk_stats              s;
    ngx_uint_t              j;

    if (ngx_http_jwtk_table == NULL
        || policy->stats_slot == NGX_HTTP_JWTK_NO_SLOT)
    {
        return;
    }

    s.struct_size = sizeof(jwtk_stats);
    if (jwtk_stats_get(v, &s) != JWTK_OK) {
        return;
    }

    e = &ngx_http_jwtk_table->e[policy->stats_slot];
    ngx_http_jwtk_add(e, C_ALLOWED, s.allowed, last->allowed);
    ngx_http_jwtk_add(e, C_DENIED, s.denied, last->denied);
    ngx_http_jwtk_add(e, C_CACHE_HIT, s.cache_hits, last->cache_hits);
    ngx_http_jwtk_add(e, C_CACHE_MISS, s.cache_misses, last->cache_misses);

    for (j = 0; j < JWTK_STATS_STATUS_SLOTS; j++) {
        ngx_http_jwtk_add(e, C_BY_STATUS + j, s.denied_by_status[j],
                          last->denied_by_status[j]);
    }

    *last = s;
}


/* A key set's counters, before it leaves the cache (and at publication). */
void
ngx_http_jwtk_publish_set(ngx_http_jwtk_policy_t *policy,
    ngx_http_jwtk_set_t *set)
{
    ngx_http_jwtk_publish_verifier(policy, set->verifier, &set->last);
}


/* Adds what a keystore counted since the last publication to its entry;
 * a failing key URL gets its warning here. */
static void
ngx_http_jwtk_publish_keys(ngx_http_jwtk_keys_t *k)
{
    ngx_http_jwtk_entry_t  *e;
    jwtk_stats              s, *l = &k->last;
    uint64_t                failed;

    s.struct_size = sizeof(jwtk_stats);
    if (jwtk_stats_get(k->first, &s) != JWTK_OK) {
        return;
    }

    e = &ngx_http_jwtk_table->e[k->stats_slot];
    ngx_http_jwtk_add(e, C_LOADS, s.jwks_loads, l->jwks_loads);
    ngx_http_jwtk_add(e, C_LOAD_FAILURES, s.jwks_load_failures,
                      l->jwks_load_failures);
    ngx_http_jwtk_add(e, C_FETCHES, s.jwks_fetches, l->jwks_fetches);
    ngx_http_jwtk_add(e, C_FETCH_FAILURES, s.jwks_fetch_failures,
                      l->jwks_fetch_failures);
    ngx_http_jwtk_add(e, C_KID_REFRESHES, s.unknown_kid_refreshes,
                      l->unknown_kid_refreshes);
    ngx_http_jwtk_add(e, C_KID_SUPPRESSED, s.unknown_kid_suppressed,
                      l->unknown_kid_suppressed);
    ngx_http_jwtk_add(e, C_STALE, s.stale_served, l->stale_served);
    ngx_http_jwtk_add(e, C_NOT_MODIFIED, s.jwks_not_modified,
                      l->jwks_not_modified);
    ngx_http_jwtk_add(e, C_DISC_FETCHES, s.discovery_fetches,
                      l->discovery_fetches);
    ngx_http_jwtk_add(e, C_DISC_FAILURES, s.discovery_fetch_failures,
                      l->discovery_fetch_failures);

    e->c[G_KEYS_LOADED] = s.keys_loaded;
    e->c[G_KEYS_REJECTED] = s.keys_rejected;
    e->c[G_LAST_SUCCESS] = s.last_success_unix > 0
                           ? (ngx_atomic_uint_t) s.last_success_unix : 0;
    e->c[G_WITHOUT_KEYS] = s.remote_sources_without_keys;

    failed = (s.jwks_fetch_failures - l->jwks_fetch_failures)
             + (s.discovery_fetch_failures - l->discovery_fetch_failures);

    if (k->pull && failed != 0) {
        /* libjwtk's refresher logs nothing: a failing key URL (or
         * discovery document) gets its line here, once a second at most. */
        ngx_log_error(NGX_LOG_WARN, ngx_cycle->log, 0,
                      "jwtk: the key URL of \"%V\" %V: %uL fetch(es) "
                      "failed, %s", &k->label, &k->url, failed,
                      s.remote_sources_without_keys
                      ? "no keys for its tokens (503)"
                      : "the keys held are served");
    }

    *l = s;
}


void
ngx_http_jwtk_status_publish(ngx_http_jwtk_main_conf_t *mcf)
{
    ngx_queue_t              *q;
    ngx_http_jwtk_policy_t  **p = mcf->policies.elts;
    ngx_http_jwtk_keys_t    **k = mcf->keysets.elts;
    ngx_uint_t                i;

    if (ngx_http_jwtk_table == NULL) {
        return;
    }

    for (i = 0; i < mcf->policies.nelts; i++) {
        ngx_http_jwtk_publish_verifier(p[i], p[i]->verifier, &p[i]->last);

        if (p[i]->keys->sources == NULL) {
            continue;
        }

        for (q = ngx_queue_head(&p[i]->sets);
             q != ngx_queue_sentinel(&p[i]->sets);
             q = ngx_queue_next(q))
        {
            ngx_http_jwtk_publish_set(p[i],
                ngx_queue_data(q, ngx_http_jwtk_set_t, queue));
        }
    }

    for (i = 0; i < mcf->keysets.nelts; i++) {
        if (k[i]->stats_slot != NGX_HTTP_JWTK_NO_SLOT) {
            ngx_http_jwtk_publish_keys(k[i]);
        }
    }
}


/* ---- the status location ------------------------------------------- */

static ngx_int_t ngx_http_jwtk_status_handler(ngx_http_request_t *r);


char *
ngx_http_jwtk_status(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_jwtk_loc_conf_t  *jcf = conf;

    ngx_http_core_loc_conf_t  *clcf;

    if (jcf->status) {
        return "is duplicate";
    }

    jcf->status = 1;

    clcf = ngx_http_conf_get_module_loc_conf(cf, ngx_http_core_module);
    clcf->handler = ngx_http_jwtk_status_handler;

    (void) cmd;

    return NGX_CONF_OK;
}


/* A label inside a JSON string or a Prometheus label value. */
static u_char *
ngx_http_jwtk_label(u_char *p, u_char *last, ngx_http_jwtk_entry_t *e)
{
    return ngx_http_jwtk_quote(p, last, e->label, e->label_len);
}


static const char *const  ngx_http_jwtk_key_names[] = {
    "jwks_loads", "jwks_load_failures", "jwks_fetches", "jwks_fetch_failed",
    "unknown_kid_refreshes", "unknown_kid_suppressed", "stale_served",
    "jwks_not_modified", "discovery_fetches", "discovery_fetch_failed",
    "keys_loaded", "keys_rejected", "last_success_unix",
    "remote_sources_without_keys"
};

static const char *const  ngx_http_jwtk_own_names[] = {
    "missing_token", "require_failed", "key_source_failed"
};

#define NGX_HTTP_JWTK_OWN  3    /* the own counters that are denials */


/* The name and count of denial reason j (the module's own, then
 * libjwtk's). */
static ngx_atomic_uint_t
ngx_http_jwtk_reason(ngx_http_jwtk_entry_t *e, ngx_uint_t j,
    const char **name)
{
    if (j < NGX_HTTP_JWTK_OWN) {
        *name = ngx_http_jwtk_own_names[j];
        return e->c[C_MISSING + j];
    }

    *name = jwtk_status_name((int) (j - NGX_HTTP_JWTK_OWN));

    return e->c[C_BY_STATUS + j - NGX_HTTP_JWTK_OWN];
}


static u_char *
ngx_http_jwtk_json_location(u_char *p, u_char *last,
    ngx_http_jwtk_entry_t *e)
{
    ngx_uint_t          j;
    ngx_atomic_uint_t   n;
    const char         *name;

    p = ngx_slprintf(p, last, "\":{\"allowed\":%uA,\"denied\":%uA,"
                     "\"jwt_cache_hit\":%uA,\"jwt_cache_miss\":%uA",
                     e->c[C_ALLOWED],
                     e->c[C_DENIED] + e->c[C_MISSING] + e->c[C_REQUIRE]
                     + e->c[C_KEY_SOURCE],
                     e->c[C_CACHE_HIT], e->c[C_CACHE_MISS]);
    p = ngx_slprintf(p, last, ",\"key_set_evictions\":%uA",
                     e->c[C_EVICTED]);
    p = ngx_slprintf(p, last, ",\"denied_by_status\":{");

    for (j = 0; j < JWTK_STATS_STATUS_SLOTS + NGX_HTTP_JWTK_OWN; j++) {
        n = ngx_http_jwtk_reason(e, j, &name);
        if (n != 0) {
            p = ngx_slprintf(p, last, "%s\"%s\":%uA",
                             p[-1] == '{' ? "" : ",", name, n);
        }
    }

    return ngx_slprintf(p, last, "}}");
}


static u_char *
ngx_http_jwtk_json(u_char *p, u_char *last, ngx_http_jwtk_table_t *t)
{
    ngx_http_jwtk_entry_t  *e;
    ngx_uint_t              i, j, kind, first;

    p = ngx_slprintf(p, last, "{");

    for (kind = 0; kind < 2; kind++) {
        p = ngx_slprintf(p, last, kind ? ",\"keys\":{" : "\"locations\":{");
        first = 1;

        for (i = 0; i < t->n; i++) {
            e = &t->e[i];

            if (e->kind != kind) {
                continue;
            }

            p = ngx_slprintf(p, last, first ? "\"" : ",\"");
            first = 0;
            p = ngx_http_jwtk_label(p, last, e);

            if (kind == NGX_HTTP_JWTK_LOCATION) {
                p = ngx_http_jwtk_json_location(p, last, e);
                continue;
            }

            p = ngx_slprintf(p, last, "\":{\"jwks_fetch_success\":%uA",
                             e->c[C_FETCHES]
                             - ngx_min(e->c[C_FETCHES],
                                       e->c[C_FETCH_FAILURES]));

            for (j = 0; j < sizeof(ngx_http_jwtk_key_names) / sizeof(char *);
                 j++)
            {
                p = ngx_slprintf(p, last, ",\"%s\":%uA",
                                 ngx_http_jwtk_key_names[j],
                                 e->c[C_LOADS + j]);
            }

            p = ngx_slprintf(p, last, "}");
        }

        p = ngx_slprintf(p, last, "}");
    }

    return ngx_slprintf(p, last, "}\n");
}


/* One Prometheus sample of a location: NAME{location="LABEL"} N */
static u_char *
ngx_http_jwtk_sample(u_char *p, u_char *last, const char *name,
    ngx_http_jwtk_entry_t *e, ngx_atomic_uint_t n)
{
    p = ngx_slprintf(p, last, "%s{location=\"", name);
    p = ngx_http_jwtk_label(p, last, e);

    return ngx_slprintf(p, last, "\"} %uA\n", n);
}


static u_char *
ngx_http_jwtk_prometheus(u_char *p, u_char *last, ngx_http_jwtk_table_t *t)
{
    ngx_http_jwtk_entry_t  *e;
    ngx_uint_t              i, j;
    ngx_atomic_uint_t       n;
    const char             *name, *type, *total;

    p = ngx_slprintf(p, last,
                     "# TYPE jwtk_allowed_total counter\n"
                     "# TYPE jwtk_denied_total counter\n"
                     "# TYPE jwtk_jwt_cache_hit_total counter\n"
                     "# TYPE jwtk_jwt_cache_miss_total counter\n"
                     "# TYPE jwtk_key_set_evictions_total counter\n");

    for (i = 0; i < t->n; i++) {
        e = &t->e[i];

        if (e->kind != NGX_HTTP_JWTK_LOCATION) {
            continue;
        }

        p = ngx_http_jwtk_sample(p, last, "jwtk_allowed_total", e,
                                 e->c[C_ALLOWED]);
        p = ngx_http_jwtk_sample(p, last, "jwtk_jwt_cache_hit_total", e,
                                 e->c[C_CACHE_HIT]);
        p = ngx_http_jwtk_sample(p, last, "jwtk_jwt_cache_miss_total", e,
                                 e->c[C_CACHE_MISS]);
        p = ngx_http_jwtk_sample(p, last, "jwtk_key_set_evictions_total", e,
                                 e->c[C_EVICTED]);

        for (j = 0; j < JWTK_STATS_STATUS_SLOTS + NGX_HTTP_JWTK_OWN; j++) {
            n = ngx_http_jwtk_reason(e, j, &name);

            if (n != 0) {
                p = ngx_slprintf(p, last, "jwtk_denied_total{location=\"");
                p = ngx_http_jwtk_label(p, last, e);
                p = ngx_slprintf(p, last, "\",reason=\"%s\"} %uA\n",
                                 name, n);
            }
        }
    }

    for (j = 0; j < sizeof(ngx_http_jwtk_key_names) / sizeof(char *); j++) {
        name = ngx_http_jwtk_key_names[j];
        type = C_LOADS + j >= G_KEYS_LOADED ? "gauge" : "counter";
        total = type[0] == 'c' ? "_total" : "";

        p = ngx_slprintf(p, last, "# TYPE jwtk_%s%s %s\n", name, total, type);

        for (i = 0; i < t->n; i++) {
            e = &t->e[i];

            if (e->kind != NGX_HTTP_JWTK_KEYS) {
                continue;
            }

            p = ngx_slprintf(p, last, "jwtk_%s%s{keys=\"", name, total);
            p = ngx_http_jwtk_label(p, last, e);
            p = ngx_slprintf(p, last, "\"} %uA\n", e->c[C_LOADS + j]);
        }
    }

    return p;
}


static ngx_int_t
ngx_http_jwtk_status_handler(ngx_http_request_t *r)
{
    static u_char  empty[] = "{\"locations\":{},\"keys\":{}}\n";

    ngx_http_jwtk_main_conf_t  *mcf;
    ngx_http_jwtk_table_t      *t = ngx_http_jwtk_table;
    ngx_str_t                   format;
    ngx_uint_t                  prometheus;
    ngx_buf_t                  *b;
    ngx_chain_t                 out;
    ngx_int_t                   rc;
    size_t                      size;

    if (!(r->method & (NGX_HTTP_GET|NGX_HTTP_HEAD))) {
        return NGX_HTTP_NOT_ALLOWED;
    }

    rc = ngx_http_discard_request_body(r);
    if (rc != NGX_OK) {
        return rc;
    }

    mcf = ngx_http_get_module_main_conf(r, ngx_http_jwtk_module);

    prometheus = ngx_http_arg(r, (u_char *) "format", 6, &format) == NGX_OK
                 && format.len == 10
                 && ngx_strncmp(format.data, "prometheus", 10) == 0;

    if (t != NULL) {
        ngx_http_jwtk_status_publish(mcf);   /* this worker's counts now */
    }

    size = 256 + (t ? t->n : 0) * (JWTK_STATS_STATUS_SLOTS + 20)
                 * (2 * NGX_HTTP_JWTK_LABEL + 96);

    b = ngx_create_temp_buf(r->pool, size);
    if (b == NULL) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    if (t == NULL) {
        if (!prometheus) {
            b->last = ngx_cpymem(b->last, empty, sizeof(empty) - 1);
        }

    } else if (prometheus) {
        b->last = ngx_http_jwtk_prometheus(b->last, b->end, t);

    } else {
        b->last = ngx_http_jwtk_json(b->last, b->end, t);
    }

    r->headers_out.status = NGX_HTTP_OK;
    r->headers_out.content_length_n = b->last - b->pos;

    if (prometheus) {
        ngx_str_set(&r->headers_out.content_type,
                    "text/plain; version=0.0.4");
    } else {
        ngx_str_set(&r->headers_out.content_type, "application/json");
    }

    r->headers_out.content_type_len = r->headers_out.content_type.len;

    rc = ngx_http_send_header(r);

    if (rc == NGX_ERROR || rc > NGX_OK || r->header_only) {
        return rc;
    }

    b->last_buf = (r == r->main) ? 1 : 0;
    b->last_in_chain = 1;

    out.buf = b;
    out.next = NULL;

    return ngx_http_output_filter(r, &out);
}
