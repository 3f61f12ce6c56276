/*
 * mock_host.c - gateways/envoy/jwtk_envoy.c under AddressSanitizer and UBSan, outside Envoy: this file plays
 * Envoy's side of the ABI (the seven callbacks the module calls, over an in-memory request header map) and
 * drives the module's hooks with mutated filter configurations and hostile request headers.
 *
 *   mock_host JWKS_FILE VALID_TOKEN [ITERATIONS]
 *
 * Checks, besides "no sanitizer report": every request is either passed on or answered once; a passed-on
 * request carries no configured claim header in any spelling other than the one the module set, and that
 * one carries the token's claim. Ends with one line: mock: N passed, M failed
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jwtk_envoy.c"

/* ------------------------------------------------------------------------------------------------
 * The host: one request header map, the local reply.
 */
typedef struct { char *k, *v; size_t kl, vl; } hdr;
static hdr headers[2048];
static size_t n_headers;
static int replies, reply_status;
static char reply_www[1024];

static void headers_clear(void)
{
    for (size_t i = 0; i < n_headers; i++) { free(headers[i].k); free(headers[i].v); }
    n_headers = 0;
}

static void header_add(const char *k, size_t kl, const char *v, size_t vl)
{
    if (n_headers >= sizeof headers / sizeof headers[0]) return;
    hdr *h = &headers[n_headers++];
    h->k = malloc(kl + 1); memcpy(h->k, k, kl); h->k[kl] = 0; h->kl = kl;
    h->v = malloc(vl + 1); memcpy(h->v, v, vl); h->v[vl] = 0; h->vl = vl;
}

void envoy_dynamic_module_callback_log(envoy_dynamic_module_type_log_level level,
                                       envoy_dynamic_module_type_module_buffer message)
{
    if (getenv("MOCK_VERBOSE")) fprintf(stderr, "log %d: %.*s\n", (int) level, (int) message.length, message.ptr);
}

bool envoy_dynamic_module_callback_log_enabled(envoy_dynamic_module_type_log_level level) { (void) level; return true; }
bool envoy_dynamic_module_callback_is_validation_mode() { return true; }

static int key_eq(const hdr *h, envoy_dynamic_module_type_module_buffer key)
{
    if (h->kl != key.length) return 0;
    for (size_t i = 0; i < key.length; i++) {
        char a = h->k[i], b = key.ptr[i];
        if (a >= 'A' && a <= 'Z') a = (char) (a - 'A' + 'a');
        if (b >= 'A' && b <= 'Z') b = (char) (b - 'A' + 'a');
        if (a != b) return 0;
    }
    return 1;
}

bool envoy_dynamic_module_callback_http_get_header(envoy_dynamic_module_type_http_filter_envoy_ptr fe,
                                                   envoy_dynamic_module_type_http_header_type t,
                                                   envoy_dynamic_module_type_module_buffer key,
                                                   envoy_dynamic_module_type_envoy_buffer *out, size_t index,
                                                   size_t *count)
{
    (void) fe; (void) t;
    size_t seen = 0;
    out->ptr = NULL;
    out->length = 0;
    for (size_t i = 0; i < n_headers; i++)
        if (key_eq(&headers[i], key)) {
            if (seen == index) { out->ptr = headers[i].v; out->length = headers[i].vl; }
            seen++;
        }
    if (count) *count = seen;
    return true;
}

size_t envoy_dynamic_module_callback_http_get_headers_size(envoy_dynamic_module_type_http_filter_envoy_ptr fe,
                                                           envoy_dynamic_module_type_http_header_type t)
{
    (void) fe; (void) t;
    return n_headers;
}

bool envoy_dynamic_module_callback_http_get_headers(envoy_dynamic_module_type_http_filter_envoy_ptr fe,
                                                    envoy_dynamic_module_type_http_header_type t,
                                                    envoy_dynamic_module_type_envoy_http_header *out)
{
    (void) fe; (void) t;
    for (size_t i = 0; i < n_headers; i++)
        out[i] = (envoy_dynamic_module_type_envoy_http_header){headers[i].k, headers[i].kl, headers[i].v, headers[i].vl};
    return true;
}

bool envoy_dynamic_module_callback_http_set_header(envoy_dynamic_module_type_http_filter_envoy_ptr fe,
                                                   envoy_dynamic_module_type_http_header_type t,
                                                   envoy_dynamic_module_type_module_buffer key,
                                                   envoy_dynamic_module_type_module_buffer value)
{
    (void) fe; (void) t;
    size_t j = 0;
    for (size_t i = 0; i < n_headers; i++) {
        if (key_eq(&headers[i], key)) { free(headers[i].k); free(headers[i].v); continue; }
        headers[j++] = headers[i];
    }
    n_headers = j;
    if (value.ptr) header_add(key.ptr, key.length, value.ptr, value.length);
    return true;
}

void envoy_dynamic_module_callback_http_send_response(envoy_dynamic_module_type_http_filter_envoy_ptr fe,
                                                      uint32_t status,
                                                      envoy_dynamic_module_type_module_http_header *h, size_t nh,
                                                      envoy_dynamic_module_type_module_buffer body,
                                                      envoy_dynamic_module_type_module_buffer details)
{
    (void) fe; (void) body;
    replies++;
    reply_status = (int) status;
    reply_www[0] = 0;
    for (size_t i = 0; i < nh; i++)
        if (h[i].key_length == 16 && !memcmp(h[i].key_ptr, "www-authenticate", 16))
            snprintf(reply_www, sizeof reply_www, "%.*s", (int) h[i].value_length, h[i].value_ptr);
    for (size_t i = 0; i < details.length; i++)
        if (details.ptr[i] <= ' ') { fprintf(stderr, "details with a space or control byte\n"); abort(); }
}

/* ------------------------------------------------------------------------------------------------
 * The driver.
 */
static int passed, failed;
static void check(const char *name, int ok)
{
    if (ok) passed++;
    else { failed++; printf("FAIL %s\n", name); }
}

/* Counters: Envoy's side of define/increment, checking ids and label counts. */
static size_t n_counters, counter_labels[8];
static unsigned long long allowed_total, denied_total, bad_counter_calls;

envoy_dynamic_module_type_metrics_result envoy_dynamic_module_callback_http_filter_config_define_counter(
    envoy_dynamic_module_type_http_filter_config_envoy_ptr cfg, envoy_dynamic_module_type_module_buffer name,
    envoy_dynamic_module_type_module_buffer *label_names, size_t n_labels, size_t *id)
{
    (void) cfg;
    if (!name.ptr || !name.length || (n_labels && !label_names) || n_counters >= 8) return envoy_dynamic_module_type_metrics_result_Frozen;
    /* Names repeat per configuration; Envoy hands out an id per definition. */
    size_t k = (name.length == 12 && !memcmp(name.ptr, "jwtk.allowed", 12)) ? 0 : 1;
    counter_labels[k] = n_labels;
    *id = k;
    if (n_counters < 2) n_counters++;
    return envoy_dynamic_module_type_metrics_result_Success;
}

envoy_dynamic_module_type_metrics_result envoy_dynamic_module_callback_http_filter_increment_counter(
    envoy_dynamic_module_type_http_filter_envoy_ptr fe, size_t id, envoy_dynamic_module_type_module_buffer *values,
    size_t n_values, uint64_t value)
{
    (void) fe;
    if (id > 1 || n_values != counter_labels[id] || (n_values && (!values || !values[0].ptr || !values[0].length)))
        { bad_counter_calls++; return envoy_dynamic_module_type_metrics_result_InvalidLabels; }
    if (id == 0) allowed_total += value; else denied_total += value;
    return envoy_dynamic_module_type_metrics_result_Success;
}

/* Dynamic metadata: the bytes must be a well-formed google.protobuf.Struct (wire format). */
static int metadata_calls, metadata_bad;
static char metadata_sub[256];

static int pb_read_varint(const unsigned char **p, const unsigned char *end, unsigned long long *v)
{
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (*p >= end) return -1;
        unsigned char b = *(*p)++;
        *v |= (unsigned long long) (b & 0x7F) << shift;
        if (!(b & 0x80)) return 0;
    }
    return -1;
}

static int pb_check_struct(const unsigned char *p, const unsigned char *end, int depth, int top);

static int pb_check_value(const unsigned char *p, const unsigned char *end, int depth, const char *key, size_t kl, int top)
{
    if (depth > 100) return -1;
    int fields = 0;
    while (p < end) {
        unsigned long long tag, len;
        if (pb_read_varint(&p, end, &tag)) return -1;
        fields++;
        switch (tag) {
        case 0x08: case 0x20: if (pb_read_varint(&p, end, &len)) return -1; break;
        case 0x11: if (end - p < 8) return -1; p += 8; break;
        case 0x1A: case 0x2A: case 0x32:
            if (pb_read_varint(&p, end, &len) || len > (unsigned long long) (end - p)) return -1;
            if (tag == 0x1A && top == 2 && kl == 3 && !memcmp(key, "sub", 3))
                snprintf(metadata_sub, sizeof metadata_sub, "%.*s", (int) len, (const char *) p);
            if (tag == 0x2A && pb_check_struct(p, p + len, depth + 1, top ? top + 1 : 0)) return -1;
            if (tag == 0x32) {
                const unsigned char *q = p, *qe = p + len;
                while (q < qe) {
                    unsigned long long t2, l2;
                    if (pb_read_varint(&q, qe, &t2) || t2 != 0x0A || pb_read_varint(&q, qe, &l2) ||
                        l2 > (unsigned long long) (qe - q) || pb_check_value(q, q + l2, depth + 1, NULL, 0, 0))
                        return -1;
                    q += l2;
                }
            }
            p += len;
            break;
        default: return -1;
        }
    }
    return fields == 1 ? 0 : -1;   /* a oneof: exactly one field */
}

static int pb_check_struct(const unsigned char *p, const unsigned char *end, int depth, int top)
{
    while (p < end) {
        unsigned long long tag, len, t, l;
        if (pb_read_varint(&p, end, &tag) || tag != 0x0A || pb_read_varint(&p, end, &len) ||
            len > (unsigned long long) (end - p))
            return -1;
        const unsigned char *e = p, *ee = p + len, *key = NULL, *val = NULL;
        size_t kl = 0, vl = 0;
        while (e < ee) {
            if (pb_read_varint(&e, ee, &t) || pb_read_varint(&e, ee, &l) || l > (unsigned long long) (ee - e)) return -1;
            if (t == 0x0A) { key = e; kl = (size_t) l; }
            else if (t == 0x12) { val = e; vl = (size_t) l; }
            else return -1;
            e += l;
        }
        if (!key || !val || pb_check_value(val, val + vl, depth + 1, (const char *) key, kl, top)) return -1;
        p += len;
    }
    return 0;
}

void envoy_dynamic_module_callback_http_set_dynamic_metadata_struct(envoy_dynamic_module_type_http_filter_envoy_ptr fe,
                                                                    envoy_dynamic_module_type_module_buffer ns,
                                                                    envoy_dynamic_module_type_module_buffer st)
{
    (void) fe;
    metadata_calls++;
    metadata_sub[0] = 0;
    if (!ns.ptr || ns.length != strlen(JWT_AUTHN_NAMESPACE) || memcmp(ns.ptr, JWT_AUTHN_NAMESPACE, ns.length) ||
        !st.ptr || pb_check_struct((const unsigned char *) st.ptr, (const unsigned char *) st.ptr + st.length, 0, 1))
        metadata_bad++;
}

static unsigned long long rng = 0x9E3779B97F4A7C15ull;
static unsigned rnd(unsigned n)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return n ? (unsigned) (rng % n) : 0;
}

static const char *claim_names[] = {"x-jwt-sub", "x-jwt-roles"};

/* Runs one request through the module; returns 1 when it was passed on. */
static int run_request(const void *config)
{
    replies = 0;
    const void *filter = envoy_dynamic_module_on_http_filter_new(config, (void *) 1);
    int st = envoy_dynamic_module_on_http_filter_request_headers((void *) 1, filter, true);
    envoy_dynamic_module_on_http_filter_stream_complete((void *) 1, filter);
    envoy_dynamic_module_on_http_filter_destroy(filter);
    int continued = st == envoy_dynamic_module_type_on_http_filter_request_headers_status_Continue;
    check("each request passed on or answered, once", continued ? replies == 0 : replies == 1);
    return continued;
}

static int lookalike_count(const char *name, const char **value)
{
    int n = 0;
    for (size_t i = 0; i < n_headers; i++)
        if (lookalike(headers[i].k, headers[i].kl, name, strlen(name))) { n++; *value = headers[i].v; }
    return n;
}

static char cfg_json[4096];

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    static char buf[1 << 20];
    *len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[*len] = 0;
    return buf;
}

int main(int argc, char **argv)
{
    if (argc < 3) { fprintf(stderr, "usage: mock_host JWKS_FILE VALID_TOKEN [ITERATIONS]\n"); return 2; }
    const char *jwks = argv[1], *token = argv[2];
    int iterations = argc > 3 ? atoi(argv[3]) : 2000;
    size_t dummy;
    check("the key file is readable", read_file(jwks, &dummy) != NULL);
    check("program init gives the ABI version", envoy_dynamic_module_on_program_init() != NULL &&
          !strcmp(envoy_dynamic_module_on_program_init(), ENVOY_DYNAMIC_MODULES_ABI_VERSION));

    char good[2048];
    snprintf(good, sizeof good,
             "{\"issuers\": [\"https://issuer.test\"], \"audiences\": [\"api\"], \"realm\": \"r\\\"\\\\\\u00e9\","
             " \"jwks_file\": \"%s\", \"claim_headers\": {\"X-Jwt-Sub\": \"sub\", \"x-jwt-roles\": \"/roles\"},"
             " \"payload_in_metadata\": \"jwt_payload\"}",
             jwks);
    envoy_dynamic_module_type_envoy_buffer name = {"jwtk", 4};
    const void *config = envoy_dynamic_module_on_http_filter_config_new(NULL, name,
                                                                        (envoy_dynamic_module_type_envoy_buffer){good, strlen(good)});
    check("the good configuration loads", config != NULL);
    if (!config) { printf("mock: %d passed, %d failed\n", passed, failed); return 1; }

    /* A valid token with forged and look-alike claim headers. */
    headers_clear();
    char auth[4096];
    snprintf(auth, sizeof auth, "Bearer %s", token);
    header_add("authorization", 13, auth, strlen(auth));
    header_add("x-jwt-sub", 9, "evil", 4);
    header_add("x_jwt_sub", 9, "evil", 4);
    header_add("X_JWT_ROLES", 11, "root", 4);
    int cont = run_request(config);
    const char *v = NULL;
    check("valid token: passed on", cont);
    check("valid token: one x-jwt-sub, the token's", lookalike_count("x-jwt-sub", &v) == 1 && v && !strcmp(v, "user-1"));
    check("valid token: one x-jwt-roles, joined", lookalike_count("x-jwt-roles", &v) == 1 && v && !strcmp(v, "admin,dev"));
    check("valid token: the payload as a Struct under jwt_authn's namespace, sub inside",
          metadata_calls == 1 && metadata_bad == 0 && !strcmp(metadata_sub, "user-1"));
    check("valid token: counted as allowed", allowed_total == 1 && denied_total == 0);
    headers_clear();
    run_request(config);
    check("no token: counted as denied (one label)", allowed_total == 1 && denied_total == 1 && bad_counter_calls == 0);
    check("no token: 401 realm-only, realm escaped", reply_status == 401 && !strcmp(reply_www, "Bearer realm=\"r\\\"\\\\\xc3\xa9\""));

    /* Hostile request headers. */
    static const char alphabet[] = "Bb eEaArR\t.,=-_~+/\"\\\x01\x7f\xff\xc3\xa9 0123456789xyzXJWTS";
    static char val[70000];
    for (int it = 0; it < iterations; it++) {
        headers_clear();
        unsigned nh = rnd(12);
        for (unsigned i = 0; i < nh; i++) {
            size_t vl;
            switch (rnd(5)) {
            case 0: vl = (size_t) rnd(70000); memset(val, 'A', vl); break;
            case 1: vl = (size_t) snprintf(val, sizeof val, "Bearer %s", token); break;
            case 2: vl = (size_t) snprintf(val, sizeof val, "Bearer %s", token);
                    val[rnd((unsigned) vl)] = alphabet[rnd(sizeof alphabet - 1)]; break;
            default: vl = rnd(300); for (size_t j = 0; j < vl; j++) val[j] = alphabet[rnd(sizeof alphabet - 1)];
            }
            const char *keys[] = {"authorization", "x-jwt-sub", "x_jwt_sub", "X-JWT-Roles", "x_jwt_roles", "other", ""};
            const char *k = keys[rnd(sizeof keys / sizeof keys[0])];
            header_add(k, strlen(k), val, vl);
        }
        int forged_before = 0;
        for (size_t i = 0; i < n_headers; i++)
            for (int c = 0; c < 2; c++)
                if (lookalike(headers[i].k, headers[i].kl, claim_names[c], strlen(claim_names[c]))) forged_before++;
        if (run_request(config)) {
            const char *sv = NULL, *rv = NULL;
            int ns = lookalike_count("x-jwt-sub", &sv), nr = lookalike_count("x-jwt-roles", &rv);
            check("passed on: claim headers only the token's", ns == 1 && nr == 1 && !strcmp(sv, "user-1") &&
                  !strcmp(rv, "admin,dev"));
        } else {
            check("answered: a 401 or 503 status", reply_status == 401 || reply_status == 403 || reply_status == 503);
        }
        (void) forged_before;
    }
    headers_clear();
    envoy_dynamic_module_on_http_filter_config_destroy(config);
    check("every request counted once, with its label", allowed_total + denied_total == (unsigned long long) iterations + 2 &&
          bad_counter_calls == 0);
    check("every allowed request set well-formed metadata", metadata_bad == 0 && (unsigned long long) metadata_calls == allowed_total);

    /* The claims encoder on its own: mutated JSON objects encode to a well-formed Struct or are refused. */
    static const char *json_seeds[] = {
        "{\"sub\": \"user-1\", \"n\": -1.5e3, \"b\": true, \"z\": null, \"a\": [1, \"x\", [false], {\"k\": {}}], \"o\": {\"p\": []}}",
        "{\"s\": \"\\u0000\\ud83d\\ude00\\n\", \"big\": 1e400, \"e\": \"\"}",
        "{\"d\": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}",
    };
    static const char jmut[] = "{}[]\",:\\u0 1e-.tfn\x00\xff";
    int encoded = 0;
    for (int it = 0; it < iterations; it++) {
        const char *seed = json_seeds[rnd(sizeof json_seeds / sizeof json_seeds[0])];
        size_t n = strlen(seed);
        memcpy(cfg_json, seed, n);
        int edits = (int) rnd(3);
        for (int e = 0; e < edits && n > 0; e++) {
            size_t at = rnd((unsigned) n);
            switch (rnd(3)) {
            case 0: cfg_json[at] = jmut[rnd(sizeof jmut - 1)]; break;
            case 1: memmove(cfg_json + at, cfg_json + at + 1, n - at - 1); n--; break;
            default: if (n < sizeof cfg_json - 1) { memmove(cfg_json + at + 1, cfg_json + at, n - at); cfg_json[at] = jmut[rnd(sizeof jmut - 1)]; n++; }
            }
        }
        char *copy = malloc(n ? n : 1);
        memcpy(copy, cfg_json, n);
        pbuf out = {0};
        if (claims_struct(copy, n, "jwt_payload", 11, &out) == 0) {
            encoded++;
            check("encoded claims: a well-formed Struct", pb_check_struct(out.p, out.p + out.n, 0, 0) == 0);
        }
        free(out.p);
        free(copy);
    }
    check("some mutated claim sets encode", encoded > 0);
    {
        pbuf out = {0};
        check("nesting deeper than the limit is refused", claims_struct(json_seeds[2], strlen(json_seeds[2]), "p", 1, &out) != 0);
        free(out.p);
    }

    /* Mutated configurations: refused or loaded, never a memory error. */
    const char *seeds[] = {
        good,
        "{\"realm\": \"a\\u0041\\ud83d\\ude00\", \"claim_headers\": {}, \"issuers\": [], \"leeway\": 5}",
        "{\"claim_headers\": {\"a\": \"/x~1y\", \"b\": \"c~d/e\"}, \"claims\": [{\"pointer\": \"/s\", \"equals\": 1}]}",
        "{}",
    };
    static const char mut[] = "{}[]\",:\\u0 \t\nad1-e.\x00\xff";
    static char cfg[4096];
    int loaded = 0;
    for (int it = 0; it < iterations; it++) {
        const char *seed = seeds[rnd(sizeof seeds / sizeof seeds[0])];
        size_t n = strlen(seed);
        memcpy(cfg, seed, n);
        int edits = 1 + (int) rnd(4);
        for (int e = 0; e < edits && n > 0; e++) {
            size_t at = rnd((unsigned) n);
            switch (rnd(3)) {
            case 0: cfg[at] = mut[rnd(sizeof mut - 1)]; break;
            case 1: memmove(cfg + at, cfg + at + 1, n - at - 1); n--; break;
            default: if (n < sizeof cfg - 1) { memmove(cfg + at + 1, cfg + at, n - at); cfg[at] = mut[rnd(sizeof mut - 1)]; n++; }
            }
        }
        /* An exact-size heap copy, so ASan sees any read past the end. */
        char *copy = malloc(n ? n : 1);
        memcpy(copy, cfg, n);
        const void *c = envoy_dynamic_module_on_http_filter_config_new(NULL, name,
                                                                       (envoy_dynamic_module_type_envoy_buffer){copy, n});
        free(copy);
        if (c) {
            loaded++;
            headers_clear();
            header_add("authorization", 13, auth, strlen(auth));
            header_add("x_jwt_sub", 9, "evil", 4);
            run_request(c);
            headers_clear();
            envoy_dynamic_module_on_http_filter_config_destroy(c);
        }
    }
    check("some mutated configurations still load", loaded > 0);
    printf("mock: %d iterations, %d mutated configurations loaded\n", iterations, loaded);
    printf("mock: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
