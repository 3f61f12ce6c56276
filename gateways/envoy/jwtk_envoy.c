/*
 * jwtk_envoy.c - an Envoy HTTP filter over libjwtk, loaded as an Envoy dynamic module
 * (envoy.filters.http.dynamic_modules; ABI excerpt in abi/abi.h). Plumbing only: configuration,
 * request headers and the local reply. The bearer grammar, verification, the challenge, the status
 * and the claim rendering are libjwtk's (jwtk.h, "the gateway contract"). docs/ENVOY.md is the guide.
 *
 * Filter configuration (filter_config, a google.protobuf.StringValue holding one JSON object): the
 * verifier configuration of jwtk_verifier_new, member for member, plus these members, which the module
 * takes out before handing the rest to libjwtk:
 *   "realm": "api"                         the realm of the WWW-Authenticate challenge (default "api")
 *   "claim_headers": {"x-jwt-sub": "sub", "x-jwt-roles": "/realm_access/roles"}
 *                                          request headers set from the verified token's claims: a value
 *                                          starting with "/" is an RFC 6901 pointer, anything else the
 *                                          name of a top-level claim; rendered by jwtk_claim_at with
 *                                          JWTK_AT_JOIN (arrays of scalars comma-joined). A claim that is
 *                                          absent, or whose text holds a control character or exceeds
 *                                          4096 bytes, sets no header.
 *   "jwks_file": "/etc/envoy/jwks.json"    push mode: a key set read once when the configuration loads,
 *                                          for tokens of any issuer the verifier accepts
 *   "payload_in_metadata": "jwt_payload"   the verified claims set as dynamic metadata, shaped as jwt_authn's
 *                                          field of that name: namespace "envoy.filters.http.jwt_authn" (or
 *                                          "metadata_namespace"), key "jwt_payload", value the claims as a
 *                                          google.protobuf.Struct, so RBAC rules written for jwt_authn match
 *   "metadata_namespace": "..."            the namespace of payload_in_metadata
 *   "token_header": "x-jwt"                the token is this request header's whole value (jwt_authn's
 *                                          from_headers without value_prefix) instead of Authorization: Bearer
 *   "token_prefix": "Bearer "              with token_header: the value must start with this (byte for
 *                                          byte) and the token is the rest (jwt_authn's value_prefix)
 *   "token_cookie": "jwt"                  the token is this cookie's value (jwt_authn's from_cookies), read
 *                                          from the Cookie header by jwtk_cookie_value
 *                                          With token_header or token_cookie, only that source is read
 *                                          (jwt_authn with one source); the two are exclusive.
 *   "strip_authorization": true            an allowed request goes upstream without its Authorization
 *                                          header (jwt_authn's forward: false); default false: kept
 *
 * Counters (Envoy stats, defined per filter configuration, summed over configurations by name):
 * "jwtk.allowed", and "jwtk.denied" with the label "reason" (the jwtk status name: no_token, expired,
 * bad_signature, ...); Envoy shows them as dynamicmodulescustom.jwtk.allowed and
 * dynamicmodulescustom.jwtk.denied.reason.<reason> on /stats, envoy_dynamicmodulescustom_jwtk_denied{reason=...}
 * on /stats/prometheus.
 *
 * Process and threads: Envoy never forks; its worker threads exist before any filter configuration
 * is loaded. Each filter configuration owns one keystore and one verifier, built on the main thread in
 * on_http_filter_config_new, where the keystore's refresher thread is started too (jwtk_keystore_start:
 * docs/C-API.md allows it in any process that will not fork afterwards), except in `--mode validate`.
 * Keys thus load before the first request. Each worker thread verifies with its own jwtk_ctx, made on
 * its first request and freed when the thread exits (a pthread key destructor; the module is linked with
 * -z nodelete so the destructor outlives any dlclose). The verifier and keystore are freed in
 * on_http_filter_config_destroy (main thread, after Envoy has drained the streams using them), which
 * joins the refresher thread.
 */
#include <errno.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jwtk.h>

#include "abi/abi.h"

#define JWTK_ENVOY_EXPORT __attribute__((visibility("default")))
#define CLAIM_VALUE_MAX 4096
/* jwt_authn's filter name, the namespace its payload_in_metadata is written under. */
#define JWT_AUTHN_NAMESPACE "envoy.filters.http.jwt_authn"
/* JSON nesting the metadata encoding accepts: protobuf's default parse limit is 100 messages deep, and each
 * JSON level costs up to three (Value, Struct, map entry). */
#define METADATA_DEPTH_MAX 30

typedef struct claim_header {
    char *name;          /* lower-case header name */
    size_t name_len;
    char *pointer;       /* RFC 6901 pointer */
    size_t pointer_len;
} claim_header;

typedef struct filter_config {
    size_t ctr_allowed, ctr_denied;   /* Envoy counter ids; valid when have_counters */
    int have_counters;
    char *payload_key;   /* payload_in_metadata, or NULL */
    size_t payload_key_len;
    char *md_ns;         /* its namespace */
    size_t md_ns_len;
    jwtk_keystore *ks;
    jwtk_verifier *v;
    char *realm;
    size_t realm_len;
    claim_header *claims;
    size_t n_claims;
    char *token_header;  /* lower-case; NULL: Authorization: Bearer */
    size_t token_header_len;
    char *token_prefix;  /* with token_header, or NULL */
    size_t token_prefix_len;
    char *token_cookie;  /* NULL: no cookie */
    size_t token_cookie_len;
    int strip_authorization;
} filter_config;

static envoy_dynamic_module_type_module_buffer mbuf_(const char *p, size_t n)
{
    return (envoy_dynamic_module_type_module_buffer){p, n};
}

/* ------------------------------------------------------------------------------------------------
 * Logging through Envoy ([dynamic_modules] logger).
 */
static void logf_(envoy_dynamic_module_type_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void logf_(envoy_dynamic_module_type_log_level level, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    size_t len = (size_t) n < sizeof buf ? (size_t) n : sizeof buf - 1;
    envoy_dynamic_module_type_module_buffer msg = {buf, len};
    envoy_dynamic_module_callback_log(level, msg);
}

/* ------------------------------------------------------------------------------------------------
 * A small scanner for the top level of the configuration object: it finds each member's key and the
 * span of its value, so the module's own members can be taken out and the rest passed to libjwtk
 * verbatim (libjwtk parses and validates them, naming a bad member).
 */
typedef struct scan { const char *p, *end; } scan;

static void ws(scan *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')) s->p++;
}

/* Skips a JSON string starting at s->p ('"'); 0 on success. */
static int skip_string(scan *s)
{
    if (s->p >= s->end || *s->p != '"') return -1;
    for (s->p++; s->p < s->end; s->p++) {
        if (*s->p == '\\') { s->p++; continue; }
        if (*s->p == '"') { s->p++; return 0; }
    }
    return -1;
}

/* Skips one JSON value (shape only; libjwtk checks the content). */
static int skip_value(scan *s, int depth)
{
    if (depth > 64) return -1;
    ws(s);
    if (s->p >= s->end) return -1;
    char c = *s->p;
    if (c == '"') return skip_string(s);
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        s->p++;
        ws(s);
        if (s->p < s->end && *s->p == close) { s->p++; return 0; }
        for (;;) {
            if (c == '{') {
                ws(s);
                if (skip_string(s)) return -1;
                ws(s);
                if (s->p >= s->end || *s->p != ':') return -1;
                s->p++;
            }
            if (skip_value(s, depth + 1)) return -1;
            ws(s);
            if (s->p >= s->end) return -1;
            if (*s->p == ',') { s->p++; continue; }
            if (*s->p == close) { s->p++; return 0; }
            return -1;
        }
    }
    const char *start = s->p;
    while (s->p < s->end && *s->p != ',' && *s->p != '}' && *s->p != ']' && *s->p != ' ' &&
           *s->p != '\t' && *s->p != '\n' && *s->p != '\r')
        s->p++;
    return s->p > start ? 0 : -1;
}

static void put_utf8(char *out, size_t *n, unsigned cp)
{
    if (cp < 0x80) out[(*n)++] = (char) cp;
    else if (cp < 0x800) { out[(*n)++] = (char) (0xC0 | cp >> 6); out[(*n)++] = (char) (0x80 | (cp & 0x3F)); }
    else if (cp < 0x10000) {
        out[(*n)++] = (char) (0xE0 | cp >> 12); out[(*n)++] = (char) (0x80 | ((cp >> 6) & 0x3F));
        out[(*n)++] = (char) (0x80 | (cp & 0x3F));
    } else {
        out[(*n)++] = (char) (0xF0 | cp >> 18); out[(*n)++] = (char) (0x80 | ((cp >> 12) & 0x3F));
        out[(*n)++] = (char) (0x80 | ((cp >> 6) & 0x3F)); out[(*n)++] = (char) (0x80 | (cp & 0x3F));
    }
}

static int hex4(const char *p, const char *end, unsigned *out)
{
    if (end - p < 4) return -1;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned) (c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned) (c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned) (c - 'A' + 10);
        else return -1;
    }
    *out = v;
    return 0;
}

/* Decodes the JSON string at s->p into a new NUL-terminated buffer (*out, *out_len); "\u0000" is
 * refused unless allow_nul (configuration strings never hold one; a claim may). */
static int read_string_ex(scan *s, char **out, size_t *out_len, int allow_nul)
{
    const char *start = s->p;
    if (skip_string(s)) return -1;
    const char *p = start + 1, *end = s->p - 1;
    char *buf = malloc((size_t) (end - p) + 1);
    if (!buf) return -1;
    size_t n = 0;
    while (p < end) {
        unsigned char c = (unsigned char) *p++;
        if (c < 0x20) goto fail;
        if (c != '\\') { buf[n++] = (char) c; continue; }
        if (p >= end) goto fail;
        char e = *p++;
        switch (e) {
        case '"': buf[n++] = '"'; break;
        case '\\': buf[n++] = '\\'; break;
        case '/': buf[n++] = '/'; break;
        case 'b': buf[n++] = '\b'; break;
        case 'f': buf[n++] = '\f'; break;
        case 'n': buf[n++] = '\n'; break;
        case 'r': buf[n++] = '\r'; break;
        case 't': buf[n++] = '\t'; break;
        case 'u': {
            unsigned cp, lo;
            if (hex4(p, end, &cp)) goto fail;
            p += 4;
            if (cp >= 0xD800 && cp < 0xDC00) {
                if (end - p < 6 || p[0] != '\\' || p[1] != 'u' || hex4(p + 2, end, &lo) || lo < 0xDC00 ||
                    lo > 0xDFFF)
                    goto fail;
                p += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp < 0xE000) {
                goto fail;
            }
            if (cp == 0 && !allow_nul) goto fail;
            put_utf8(buf, &n, cp);   /* never longer than the 6 or 12 escape bytes it replaces */
            break;
        }
        default: goto fail;
        }
    }
    buf[n] = 0;
    *out = buf;
    *out_len = n;
    return 0;
fail:
    free(buf);
    return -1;
}

static int read_string(scan *s, char **out, size_t *out_len) { return read_string_ex(s, out, out_len, 0); }

/* A configuration member's string, replacing the one a repeated member set before (the last one counts, as in
 * the library's own configuration); -1 on a syntax error, or when `nonempty` and the string is empty. */
static int replace_string(scan *s, char **out, size_t *out_len, int nonempty)
{
    free(*out);
    *out = NULL;
    if (read_string(s, out, out_len)) return -1;
    return nonempty && *out_len == 0 ? -1 : 0;
}

/* ------------------------------------------------------------------------------------------------
 * The claims set as a google.protobuf.Struct (wire format), for payload_in_metadata. Envoy keeps
 * dynamic metadata as Structs; jwt_authn writes the payload as one under its namespace, and RBAC's
 * metadata matcher walks it by key. The input is the claims JSON libjwtk verified (jwtk_claim_at with the
 * empty pointer), read with the scanner above. Struct = {1: map entry {1: key, 2: Value}}, Value = oneof
 * {1: null (varint), 2: number (double), 3: string, 4: bool, 5: Struct, 6: ListValue {1: Value}}.
 */
typedef struct pbuf { unsigned char *p; size_t n, cap; int oom; } pbuf;

static void pb_put(pbuf *b, const void *d, size_t n)
{
    if (b->oom) return;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n) cap *= 2;
        unsigned char *g = realloc(b->p, cap);
        if (!g) { b->oom = 1; return; }
        b->p = g;
        b->cap = cap;
    }
    if (n) memcpy(b->p + b->n, d, n);
    b->n += n;
}

static void pb_varint(pbuf *b, uint64_t v)
{
    unsigned char tmp[10];
    size_t n = 0;
    do { tmp[n] = (unsigned char) (v & 0x7F); v >>= 7; if (v) tmp[n] |= 0x80; n++; } while (v);
    pb_put(b, tmp, n);
}

/* A length-delimited field: tag byte, length, bytes. */
static void pb_field(pbuf *b, unsigned char tag, const void *d, size_t n)
{
    pb_put(b, &tag, 1);
    pb_varint(b, n);
    pb_put(b, d, n);
}

static int pb_value(scan *s, pbuf *out, int depth);

/* s->p at '{': appends the Struct's fields to out. */
static int pb_struct(scan *s, pbuf *out, int depth)
{
    s->p++;
    ws(s);
    if (s->p < s->end && *s->p == '}') { s->p++; return 0; }
    for (;;) {
        char *key = NULL;
        size_t key_len;
        ws(s);
        if (read_string_ex(s, &key, &key_len, 1)) return -1;
        ws(s);
        if (s->p >= s->end || *s->p != ':') { free(key); return -1; }
        s->p++;
        pbuf v = {0}, e = {0};
        int rc = pb_value(s, &v, depth);
        if (rc == 0) {
            pb_field(&e, 0x0A, key, key_len);
            pb_field(&e, 0x12, v.p, v.n);
            pb_field(out, 0x0A, e.p, e.n);
            rc = v.oom || e.oom ? -1 : 0;
        }
        free(key);
        free(v.p);
        free(e.p);
        if (rc) return -1;
        ws(s);
        if (s->p >= s->end) return -1;
        if (*s->p == ',') { s->p++; continue; }
        if (*s->p == '}') { s->p++; return 0; }
        return -1;
    }
}

/* Appends one Value (its fields) for the JSON value at s->p. */
static int pb_value(scan *s, pbuf *out, int depth)
{
    if (depth > METADATA_DEPTH_MAX) return -1;
    ws(s);
    if (s->p >= s->end) return -1;
    char c = *s->p;
    if (c == '{' || c == '[') {
        pbuf in = {0};
        int rc;
        if (c == '{') rc = pb_struct(s, &in, depth + 1);
        else {
            s->p++;
            ws(s);
            rc = 0;
            if (s->p < s->end && *s->p == ']') s->p++;
            else for (;;) {
                pbuf v = {0};
                rc = pb_value(s, &v, depth + 1);
                if (rc == 0) pb_field(&in, 0x0A, v.p, v.n);
                rc = rc || v.oom;
                free(v.p);
                if (rc) break;
                ws(s);
                if (s->p < s->end && *s->p == ',') { s->p++; continue; }
                if (s->p < s->end && *s->p == ']') { s->p++; break; }
                rc = -1;
                break;
            }
        }
        if (rc == 0) pb_field(out, c == '{' ? 0x2A : 0x32, in.p, in.n);
        free(in.p);
        return rc || in.oom || out->oom ? -1 : 0;
    }
    if (c == '"') {
        char *str = NULL;
        size_t n;
        if (read_string_ex(s, &str, &n, 1)) return -1;
        pb_field(out, 0x1A, str, n);
        free(str);
        return out->oom ? -1 : 0;
    }
    const char *start = s->p;
    if (skip_value(s, 0)) return -1;
    size_t n = (size_t) (s->p - start);
    if (n == 4 && !memcmp(start, "true", 4)) { pb_put(out, "\x20\x01", 2); return out->oom ? -1 : 0; }
    if (n == 5 && !memcmp(start, "false", 5)) { pb_put(out, "\x20\x00", 2); return out->oom ? -1 : 0; }
    if (n == 4 && !memcmp(start, "null", 4)) { pb_put(out, "\x08\x00", 2); return out->oom ? -1 : 0; }
    char num[64];
    if (n >= sizeof num || !(start[0] == '-' || (start[0] >= '0' && start[0] <= '9'))) return -1;
    memcpy(num, start, n);
    num[n] = 0;
    char *endp;
    double d = strtod(num, &endp);
    if (endp != num + n) return -1;
    unsigned char w[9];
    uint64_t bits;
    memcpy(&bits, &d, 8);
    w[0] = 0x11;   /* field 2, 64-bit */
    for (int i = 0; i < 8; i++) w[1 + i] = (unsigned char) (bits >> (8 * i));
    pb_put(out, w, 9);
    return out->oom ? -1 : 0;
}

/* *out: the Struct {key: <claims object>}; 0, or -1 when the JSON is not an object or too deep. */
static int claims_struct(const char *json, size_t len, const char *key, size_t key_len, pbuf *out)
{
    scan s = {json, json + len};
    ws(&s);
    if (s.p >= s.end || *s.p != '{') return -1;
    pbuf v = {0}, e = {0};
    int rc = pb_value(&s, &v, 0);
    ws(&s);
    if (rc == 0 && s.p == s.end) {
        pb_field(&e, 0x0A, key, key_len);
        pb_field(&e, 0x12, v.p, v.n);
        pb_field(out, 0x0A, e.p, e.n);
        rc = v.oom || e.oom || out->oom ? -1 : 0;
    } else {
        rc = -1;
    }
    free(v.p);
    free(e.p);
    return rc;
}

static int is_tchar(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

/* A JSON true or false; 0 on success. */
static int read_bool(scan *s, int *out)
{
    if (s->end - s->p >= 4 && !memcmp(s->p, "true", 4)) { *out = 1; s->p += 4; return 0; }
    if (s->end - s->p >= 5 && !memcmp(s->p, "false", 5)) { *out = 0; s->p += 5; return 0; }
    return -1;
}

/* token_header: an HTTP token, lower-cased as Envoy keeps header names; 0 when valid. */
static int header_name(char *name, size_t len)
{
    if (len == 0) return -1;
    for (size_t i = 0; i < len; i++) {
        if (!is_tchar((unsigned char) name[i])) return -1;
        if (name[i] >= 'A' && name[i] <= 'Z') name[i] = (char) (name[i] - 'A' + 'a');
    }
    return 0;
}

static void config_free(filter_config *c)
{
    if (!c) return;
    jwtk_verifier_free(c->v);
    jwtk_keystore_free(c->ks);
    for (size_t i = 0; i < c->n_claims; i++) { free(c->claims[i].name); free(c->claims[i].pointer); }
    free(c->claims);
    free(c->payload_key);
    free(c->md_ns);
    free(c->realm);
    free(c->token_header);
    free(c->token_prefix);
    free(c->token_cookie);
    free(c);
}

static int parse_claim_headers(scan *s, filter_config *c)
{
    ws(s);
    if (s->p >= s->end || *s->p != '{') return -1;
    s->p++;
    ws(s);
    if (s->p < s->end && *s->p == '}') { s->p++; return 0; }
    for (;;) {
        char *name = NULL, *val = NULL;
        size_t name_len, val_len;
        ws(s);
        if (read_string(s, &name, &name_len)) return -1;
        ws(s);
        if (s->p >= s->end || *s->p != ':') { free(name); return -1; }
        s->p++;
        ws(s);
        if (read_string(s, &val, &val_len)) { free(name); return -1; }
        int ok = name_len > 0 && name_len <= 256 && val_len > 0 && val_len <= 1000 && c->n_claims < 64;
        for (size_t i = 0; ok && i < name_len; i++) {
            if (!is_tchar((unsigned char) name[i])) ok = 0;
            if (name[i] >= 'A' && name[i] <= 'Z') name[i] = (char) (name[i] - 'A' + 'a');
        }
        /* Headers the module must never set from a claim. */
        if (ok && (!strcmp(name, "authorization") || !strcmp(name, "host") || !strcmp(name, "content-length") ||
                   !strcmp(name, "transfer-encoding") || !strcmp(name, "connection")))
            ok = 0;
        if (!ok) {
            logf_(envoy_dynamic_module_type_log_level_Error,
                  "jwtk: claim_headers: \"%.64s\": a header name (an HTTP token, not authorization, host, "
                  "content-length, transfer-encoding or connection) and a claim name or pointer, at most 64",
                  name);
            free(name); free(val);
            return -1;
        }
        char *ptr;
        size_t ptr_len = 0;
        if (val[0] == '/') {
            ptr = val;
            ptr_len = val_len;
        } else {   /* a claim name: "/" + name with "~" as "~0" and "/" as "~1" */
            ptr = malloc(2 * val_len + 2);
            if (!ptr) { free(name); free(val); return -1; }
            ptr[ptr_len++] = '/';
            for (size_t i = 0; i < val_len; i++) {
                if (val[i] == '~') { ptr[ptr_len++] = '~'; ptr[ptr_len++] = '0'; }
                else if (val[i] == '/') { ptr[ptr_len++] = '~'; ptr[ptr_len++] = '1'; }
                else ptr[ptr_len++] = val[i];
            }
            ptr[ptr_len] = 0;
            free(val);
        }
        claim_header *grown = realloc(c->claims, (c->n_claims + 1) * sizeof *grown);
        if (!grown) { free(name); free(ptr); return -1; }
        c->claims = grown;
        c->claims[c->n_claims++] = (claim_header){name, name_len, ptr, ptr_len};
        ws(s);
        if (s->p >= s->end) return -1;
        if (*s->p == ',') { s->p++; continue; }
        if (*s->p == '}') { s->p++; return 0; }
        return -1;
    }
}

static int load_jwks_file(filter_config *c, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        logf_(envoy_dynamic_module_type_log_level_Error, "jwtk: jwks_file \"%s\": %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
        if (n == cap) {
            if (cap >= ((size_t) 16 << 20)) { free(buf); buf = NULL; break; }
            char *g = realloc(buf, cap * 2);
            if (!g) { free(buf); buf = NULL; break; }
            buf = g;
            cap *= 2;
        }
    }
    fclose(f);
    if (!buf) {
        logf_(envoy_dynamic_module_type_log_level_Error, "jwtk: jwks_file \"%s\": unreadable or over 16 MiB", path);
        return -1;
    }
    jwtk_ctx *ctx = NULL;
    jwtk_ctx_new(&ctx);
    int st = jwtk_keystore_load_jwks_ex(c->ks, NULL, 0, buf, n, ctx);
    free(buf);
    if (st != JWTK_OK)
        logf_(envoy_dynamic_module_type_log_level_Error, "jwtk: jwks_file \"%s\": %s: %s", path,
              jwtk_status_name(st), ctx ? jwtk_ctx_errmsg(ctx) : "");
    jwtk_ctx_free(ctx);
    return st == JWTK_OK ? 0 : -1;
}

/* Envoy's counters for this configuration: "jwtk.allowed", and "jwtk.denied" labelled with the reason. A host that
 * refuses them (stats frozen) leaves the filter working without counters. */
static void define_counters(envoy_dynamic_module_type_http_filter_config_envoy_ptr host, filter_config *c)
{
    envoy_dynamic_module_type_module_buffer reason = {"reason", 6};
    c->have_counters =
        envoy_dynamic_module_callback_http_filter_config_define_counter(host, mbuf_("jwtk.allowed", 12), NULL, 0,
                                                                        &c->ctr_allowed) ==
            envoy_dynamic_module_type_metrics_result_Success &&
        envoy_dynamic_module_callback_http_filter_config_define_counter(host, mbuf_("jwtk.denied", 11), &reason, 1,
                                                                        &c->ctr_denied) ==
            envoy_dynamic_module_type_metrics_result_Success;
    if (!c->have_counters)
        logf_(envoy_dynamic_module_type_log_level_Warn, "jwtk: Envoy refused the counters; running without them");
}

static filter_config *config_new(envoy_dynamic_module_type_http_filter_config_envoy_ptr host, const char *json,
                                 size_t len)
{
    filter_config *c = calloc(1, sizeof *c);
    char *rest = malloc(len + 2);
    char *jwks_file = NULL;
    size_t rest_len = 0;
    jwtk_ctx *ctx = NULL;
    if (!c || !rest) goto fail;
    scan s = {json, json + len};
    ws(&s);
    if (s.p >= s.end || *s.p != '{') {
        logf_(envoy_dynamic_module_type_log_level_Error, "jwtk: the filter config is not a JSON object");
        goto fail;
    }
    s.p++;
    rest[rest_len++] = '{';
    ws(&s);
    if (s.p < s.end && *s.p == '}') s.p++;
    else for (;;) {
        ws(&s);
        const char *member = s.p;
        if (skip_string(&s)) goto syntax;
        const char *key = member + 1;
        size_t key_len = (size_t) (s.p - member) - 2;
        ws(&s);
        if (s.p >= s.end || *s.p != ':') goto syntax;
        s.p++;
        ws(&s);
        if (key_len == 5 && !memcmp(key, "realm", 5)) {
            if (replace_string(&s, &c->realm, &c->realm_len, 0)) goto syntax;
        } else if (key_len == 13 && !memcmp(key, "claim_headers", 13)) {
            if (parse_claim_headers(&s, c)) goto syntax;
        } else if (key_len == 19 && !memcmp(key, "payload_in_metadata", 19)) {
            if (replace_string(&s, &c->payload_key, &c->payload_key_len, 1)) goto syntax;
        } else if (key_len == 18 && !memcmp(key, "metadata_namespace", 18)) {
            if (replace_string(&s, &c->md_ns, &c->md_ns_len, 1)) goto syntax;
        } else if (key_len == 12 && !memcmp(key, "token_header", 12)) {
            if (replace_string(&s, &c->token_header, &c->token_header_len, 0) ||
                header_name(c->token_header, c->token_header_len))
                goto syntax;
        } else if (key_len == 12 && !memcmp(key, "token_prefix", 12)) {
            if (replace_string(&s, &c->token_prefix, &c->token_prefix_len, 1)) goto syntax;
        } else if (key_len == 12 && !memcmp(key, "token_cookie", 12)) {
            if (replace_string(&s, &c->token_cookie, &c->token_cookie_len, 1)) goto syntax;
        } else if (key_len == 19 && !memcmp(key, "strip_authorization", 19)) {
            if (read_bool(&s, &c->strip_authorization)) goto syntax;
        } else if (key_len == 9 && !memcmp(key, "jwks_file", 9)) {
            size_t l;
            if (replace_string(&s, &jwks_file, &l, 0)) goto syntax;
        } else {
            if (skip_value(&s, 0)) goto syntax;
            if (rest_len > 1) rest[rest_len++] = ',';
            memcpy(rest + rest_len, member, (size_t) (s.p - member));
            rest_len += (size_t) (s.p - member);
        }
        ws(&s);
        if (s.p >= s.end) goto syntax;
        if (*s.p == ',') { s.p++; continue; }
        if (*s.p == '}') { s.p++; break; }
        goto syntax;
    }
    ws(&s);
    if (s.p != s.end) goto syntax;
    rest[rest_len++] = '}';
    if (!c->realm) {
        c->realm = strdup("api");
        c->realm_len = 3;
        if (!c->realm) goto fail;
    }
    if (c->md_ns && !c->payload_key) {
        logf_(envoy_dynamic_module_type_log_level_Error, "jwtk: metadata_namespace needs payload_in_metadata");
        goto fail;
    }
    if (c->token_header && c->token_cookie) {
        logf_(envoy_dynamic_module_type_log_level_Error, "jwtk: token_header and token_cookie: one token source only");
        goto fail;
    }
    if (c->token_prefix && !c->token_header) {
        logf_(envoy_dynamic_module_type_log_level_Error, "jwtk: token_prefix needs token_header");
        goto fail;
    }
    if (c->payload_key && !c->md_ns) {
        c->md_ns = strdup(JWT_AUTHN_NAMESPACE);
        c->md_ns_len = strlen(JWT_AUTHN_NAMESPACE);
        if (!c->md_ns) goto fail;
    }
    if (jwtk_keystore_new(&c->ks) != JWTK_OK) goto fail;
    jwtk_ctx_new(&ctx);
    int st = jwtk_verifier_new_ex(rest, rest_len, c->ks, ctx, &c->v);
    if (st != JWTK_OK) {
        logf_(envoy_dynamic_module_type_log_level_Error, "jwtk: verifier config: %s: %s", jwtk_status_name(st),
              ctx ? jwtk_ctx_errmsg(ctx) : "");
        goto fail;
    }
    if (jwks_file && load_jwks_file(c, jwks_file)) goto fail;
    if (!envoy_dynamic_module_callback_is_validation_mode()) {
        st = jwtk_keystore_start(c->ks);
        if (st != JWTK_OK) {
            logf_(envoy_dynamic_module_type_log_level_Error, "jwtk: jwtk_keystore_start: %s", jwtk_status_name(st));
            goto fail;
        }
    }
    define_counters(host, c);
    jwtk_ctx_free(ctx);
    free(rest);
    free(jwks_file);
    return c;
syntax:
    logf_(envoy_dynamic_module_type_log_level_Error,
          "jwtk: the filter config is not valid JSON (or a realm, claim_headers, jwks_file, payload_in_metadata, "
          "metadata_namespace, token_header, token_prefix, token_cookie or strip_authorization member is malformed) "
          "near byte %zu", (size_t) (s.p - json));
fail:
    jwtk_ctx_free(ctx);
    free(rest);
    free(jwks_file);
    config_free(c);
    return NULL;
}

/* ------------------------------------------------------------------------------------------------
 * Per-thread verification context.
 */
static pthread_key_t ctx_key;
static pthread_once_t ctx_once = PTHREAD_ONCE_INIT;
static int ctx_key_ok;
static __thread jwtk_ctx *tls_ctx;

static void ctx_destroy(void *p) { jwtk_ctx_free((jwtk_ctx *) p); }
static void ctx_key_init(void) { ctx_key_ok = pthread_key_create(&ctx_key, ctx_destroy) == 0; }

static jwtk_ctx *thread_ctx(void)
{
    if (tls_ctx) return tls_ctx;
    pthread_once(&ctx_once, ctx_key_init);
    if (!ctx_key_ok) return NULL;
    jwtk_ctx *ctx = NULL;
    if (jwtk_ctx_new(&ctx) != JWTK_OK || !ctx) return NULL;
    if (pthread_setspecific(ctx_key, ctx) != 0) { jwtk_ctx_free(ctx); return NULL; }
    tls_ctx = ctx;
    return ctx;
}

/* ------------------------------------------------------------------------------------------------
 * Request plumbing.
 */
#define REQ envoy_dynamic_module_type_http_header_type_RequestHeader
#define CONTINUE envoy_dynamic_module_type_on_http_filter_request_headers_status_Continue
#define STOP envoy_dynamic_module_type_on_http_filter_request_headers_status_StopIteration

#define mbuf mbuf_

/* Answers `status` with its HTTP status and challenge (none for 503 and 500). */
static void deny(envoy_dynamic_module_type_http_filter_envoy_ptr fe, const filter_config *c, int status)
{
    int http = status == JWTK_E_NO_TOKEN ? 401 : jwtk_status_http(status);
    char small[512];
    char *buf = small;
    size_t out = 0;
    int st = jwtk_challenge(status, c->realm, c->realm_len, NULL, 0, buf, sizeof small, &out);
    if (st == JWTK_E_LENGTH && out > 0) {
        buf = malloc(out);
        if (buf) st = jwtk_challenge(status, c->realm, c->realm_len, NULL, 0, buf, out, &out);
    }
    envoy_dynamic_module_type_module_http_header hdr = {"www-authenticate", 16, buf, out};
    size_t n_hdr = (st == JWTK_OK && buf && out > 0) ? 1 : 0;
    char details[64];
    const char *reason = status == JWTK_E_NO_TOKEN ? "no_token" : jwtk_status_name(status);
    int dl = snprintf(details, sizeof details, "jwtk_%s", reason);
    if (c->have_counters) {
        envoy_dynamic_module_type_module_buffer label = {reason, strlen(reason)};
        envoy_dynamic_module_callback_http_filter_increment_counter(fe, c->ctr_denied, &label, 1, 1);
    }
    envoy_dynamic_module_callback_http_send_response(fe, (uint32_t) http, n_hdr ? &hdr : NULL, n_hdr, mbuf(NULL, 0),
                                                     mbuf(details, dl > 0 ? (size_t) dl : 0));
    if (buf != small) free(buf);
}

/* Header names equal when they differ only in letter case and '_' for '-'. */
static int lookalike(const char *a, size_t al, const char *b, size_t bl)
{
    if (al != bl) return 0;
    for (size_t i = 0; i < al; i++) {
        unsigned char x = (unsigned char) a[i], y = (unsigned char) b[i];
        if (x >= 'A' && x <= 'Z') x = (unsigned char) (x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z') y = (unsigned char) (y - 'A' + 'a');
        if (x == '_') x = '-';
        if (y == '_') y = '-';
        if (x != y) return 0;
    }
    return 1;
}

/* Removes every request header that is a configured claim header in any spelling; 0, or -1 when out of
 * memory (the request is then refused: a forged claim header must never pass). */
static int strip_claim_headers(envoy_dynamic_module_type_http_filter_envoy_ptr fe, const filter_config *c)
{
    if (c->n_claims == 0) return 0;
    size_t n = envoy_dynamic_module_callback_http_get_headers_size(fe, REQ);
    if (n == 0) return 0;
    envoy_dynamic_module_type_envoy_http_header *h = calloc(n, sizeof *h);
    if (!h) return -1;
    if (!envoy_dynamic_module_callback_http_get_headers(fe, REQ, h)) { free(h); return 0; }
    /* Copy the names to remove first: Envoy's buffers end with the first setter call. */
    size_t total = 0, k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < c->n_claims; j++)
            if (lookalike(h[i].key_ptr, h[i].key_length, c->claims[j].name, c->claims[j].name_len)) {
                total += h[i].key_length;
                k++;
                break;
            }
    if (k == 0) { free(h); return 0; }
    char *names = malloc(total + 1);
    size_t *lens = malloc(k * sizeof *lens);
    if (!names || !lens) { free(h); free(names); free(lens); return -1; }
    size_t at = 0, m = 0;
    for (size_t i = 0; i < n && m < k; i++)
        for (size_t j = 0; j < c->n_claims; j++)
            if (lookalike(h[i].key_ptr, h[i].key_length, c->claims[j].name, c->claims[j].name_len)) {
                memcpy(names + at, h[i].key_ptr, h[i].key_length);
                lens[m++] = h[i].key_length;
                at += h[i].key_length;
                break;
            }
    free(h);
    at = 0;
    for (size_t i = 0; i < m; i++) {
        envoy_dynamic_module_callback_http_set_header(fe, REQ, mbuf(names + at, lens[i]), mbuf(NULL, 0));
        at += lens[i];
    }
    free(names);
    free(lens);
    return 0;
}

static int renderable(const char *p, size_t n)
{
    if (n > CLAIM_VALUE_MAX) return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char) p[i];
        if ((ch < 0x20 && ch != '\t') || ch == 0x7F) return 0;
    }
    return 1;
}

/* The verified claims under c->md_ns as {payload_key: claims}, as jwt_authn's payload_in_metadata. */
static int set_payload_metadata(envoy_dynamic_module_type_http_filter_envoy_ptr fe, const filter_config *c,
                                jwtk_ctx *ctx)
{
    jwtk_str claims = {NULL, 0};
    int type = JWTK_JSON_NONE;
    if (jwtk_claim_at(ctx, NULL, 0, 0, &claims, &type) != JWTK_OK || type != JWTK_JSON_OBJECT || !claims.ptr)
        return -1;
    pbuf st = {0};
    int rc = claims_struct(claims.ptr, claims.len, c->payload_key, c->payload_key_len, &st);
    if (rc == 0)
        envoy_dynamic_module_callback_http_set_dynamic_metadata_struct(fe, mbuf(c->md_ns, c->md_ns_len),
                                                                       mbuf((const char *) st.p, st.n));
    free(st.p);
    return rc;
}

/* The token of the configured source: *token {NULL, 0} when there is none; JWTK_OK, or the status to deny with
 * (JWTK_MALFORMED for two headers of the source: which one was meant is not known). The token points into
 * Envoy's header buffers, valid until the first header setter call. */
static int request_token(envoy_dynamic_module_type_http_filter_envoy_ptr fe, const filter_config *c, jwtk_str *token)
{
    *token = (jwtk_str){NULL, 0};
    envoy_dynamic_module_type_envoy_buffer value = {NULL, 0};
    size_t count = 0;
    if (c->token_cookie) {
        /* HTTP/2 and HTTP/3 clients may send the cookies as several headers (RFC 9113 section 8.2.3): each is
         * searched in order, the first pair of the name wins. */
        for (size_t i = 0;; i++) {
            if (!envoy_dynamic_module_callback_http_get_header(fe, REQ, mbuf("cookie", 6), &value, i, &count) ||
                !value.ptr)
                return JWTK_OK;
            if (jwtk_cookie_value(value.ptr, value.length, c->token_cookie, c->token_cookie_len, token) != JWTK_OK)
                return JWTK_E_NULL;
            if (token->ptr) return JWTK_OK;
            if (i + 1 >= count) return JWTK_OK;
        }
    }
    const char *name = c->token_header ? c->token_header : "authorization";
    size_t name_len = c->token_header ? c->token_header_len : 13;
    if (!envoy_dynamic_module_callback_http_get_header(fe, REQ, mbuf(name, name_len), &value, 0, &count)) count = 0;
    if (count == 0 || !value.ptr) return JWTK_OK;
    if (count > 1) return JWTK_MALFORMED;   /* two token headers: refused */
    if (!c->token_header) return jwtk_bearer_token(value.ptr, value.length, token) == JWTK_OK ? JWTK_OK : JWTK_E_NULL;
    const char *p = value.ptr;
    size_t n = value.length;
    if (c->token_prefix) {
        if (n < c->token_prefix_len || memcmp(p, c->token_prefix, c->token_prefix_len)) return JWTK_OK;
        p += c->token_prefix_len;
        n -= c->token_prefix_len;
    }
    *token = (jwtk_str){p, n};
    return JWTK_OK;
}

static envoy_dynamic_module_type_on_http_filter_request_headers_status
on_request_headers(envoy_dynamic_module_type_http_filter_envoy_ptr fe, const filter_config *c)
{
    if (strip_claim_headers(fe, c)) { deny(fe, c, JWTK_E_NULL); return STOP; }
    jwtk_ctx *ctx = thread_ctx();
    if (!ctx) { deny(fe, c, JWTK_E_NULL); return STOP; }

    jwtk_str token = {NULL, 0};
    int src = request_token(fe, c, &token);
    if (src != JWTK_OK) { deny(fe, c, src); return STOP; }
    /* An empty header or cookie value is no token, as a missing one. */
    if (!token.ptr || token.len == 0) { deny(fe, c, JWTK_E_NO_TOKEN); return STOP; }
    int st = jwtk_verify(c->v, ctx, token.ptr, token.len, 0, NULL);
    if (st != JWTK_OK) { deny(fe, c, st); return STOP; }
    if (c->payload_key && set_payload_metadata(fe, c, ctx)) {
        /* Fail closed: an RBAC rule of action DENY would not see claims that are not there. */
        logf_(envoy_dynamic_module_type_log_level_Error, "jwtk: payload_in_metadata: the claims could not be encoded");
        deny(fe, c, JWTK_E_NULL);
        return STOP;
    }
    for (size_t i = 0; i < c->n_claims; i++) {
        jwtk_str v = {NULL, 0};
        int type = JWTK_JSON_NONE;
        if (jwtk_claim_at(ctx, c->claims[i].pointer, c->claims[i].pointer_len, JWTK_AT_JOIN, &v, &type) != JWTK_OK ||
            type == JWTK_JSON_NONE || !v.ptr || !renderable(v.ptr, v.len))
            continue;
        envoy_dynamic_module_callback_http_set_header(fe, REQ, mbuf(c->claims[i].name, c->claims[i].name_len),
                                                      mbuf(v.ptr, v.len));
    }
    if (c->strip_authorization)
        envoy_dynamic_module_callback_http_set_header(fe, REQ, mbuf("authorization", 13), mbuf(NULL, 0));
    if (c->have_counters) envoy_dynamic_module_callback_http_filter_increment_counter(fe, c->ctr_allowed, NULL, 0, 1);
    return CONTINUE;
}

/* ------------------------------------------------------------------------------------------------
 * The ABI's event hooks.
 */
JWTK_ENVOY_EXPORT envoy_dynamic_module_type_abi_version_module_ptr envoy_dynamic_module_on_program_init(void)
{
    /* The header this module was built with and the library it loaded must agree. */
    if (jwtk_version_number() != JWTK_VERSION_NUMBER) return NULL;
    return ENVOY_DYNAMIC_MODULES_ABI_VERSION;
}

JWTK_ENVOY_EXPORT envoy_dynamic_module_type_http_filter_config_module_ptr
envoy_dynamic_module_on_http_filter_config_new(envoy_dynamic_module_type_http_filter_config_envoy_ptr host,
                                               envoy_dynamic_module_type_envoy_buffer name,
                                               envoy_dynamic_module_type_envoy_buffer config)
{
    (void) name;   /* one filter: any filter_name */
    if (!config.ptr || config.length == 0) {
        logf_(envoy_dynamic_module_type_log_level_Error, "jwtk: filter_config is required (a JSON object)");
        return NULL;
    }
    return config_new(host, config.ptr, config.length);
}

JWTK_ENVOY_EXPORT void envoy_dynamic_module_on_http_filter_config_destroy(
    envoy_dynamic_module_type_http_filter_config_module_ptr p)
{
    config_free((filter_config *) p);
}

/* The per-stream filter holds no state of its own: it is the configuration. */
JWTK_ENVOY_EXPORT envoy_dynamic_module_type_http_filter_module_ptr envoy_dynamic_module_on_http_filter_new(
    envoy_dynamic_module_type_http_filter_config_module_ptr config, envoy_dynamic_module_type_http_filter_envoy_ptr fe)
{
    (void) fe;
    return config;
}

JWTK_ENVOY_EXPORT envoy_dynamic_module_type_on_http_filter_request_headers_status
envoy_dynamic_module_on_http_filter_request_headers(envoy_dynamic_module_type_http_filter_envoy_ptr fe,
                                                    envoy_dynamic_module_type_http_filter_module_ptr fm, bool eos)
{
    (void) eos;
    if (!fm) return STOP;
    return on_request_headers(fe, (const filter_config *) fm);
}

JWTK_ENVOY_EXPORT void envoy_dynamic_module_on_http_filter_destroy(envoy_dynamic_module_type_http_filter_module_ptr fm)
{
    (void) fm;
}

/* Hooks the filter does not use: pass everything on. */
JWTK_ENVOY_EXPORT envoy_dynamic_module_type_on_http_filter_request_body_status
envoy_dynamic_module_on_http_filter_request_body(envoy_dynamic_module_type_http_filter_envoy_ptr fe,
                                                 envoy_dynamic_module_type_http_filter_module_ptr fm, bool eos)
{
    (void) fe; (void) fm; (void) eos;
    return envoy_dynamic_module_type_on_http_filter_request_body_status_Continue;
}

JWTK_ENVOY_EXPORT envoy_dynamic_module_type_on_http_filter_request_trailers_status
envoy_dynamic_module_on_http_filter_request_trailers(envoy_dynamic_module_type_http_filter_envoy_ptr fe,
                                                     envoy_dynamic_module_type_http_filter_module_ptr fm)
{
    (void) fe; (void) fm;
    return envoy_dynamic_module_type_on_http_filter_request_trailers_status_Continue;
}

JWTK_ENVOY_EXPORT envoy_dynamic_module_type_on_http_filter_response_headers_status
envoy_dynamic_module_on_http_filter_response_headers(envoy_dynamic_module_type_http_filter_envoy_ptr fe,
                                                     envoy_dynamic_module_type_http_filter_module_ptr fm, bool eos)
{
    (void) fe; (void) fm; (void) eos;
    return envoy_dynamic_module_type_on_http_filter_response_headers_status_Continue;
}

JWTK_ENVOY_EXPORT envoy_dynamic_module_type_on_http_filter_response_body_status
envoy_dynamic_module_on_http_filter_response_body(envoy_dynamic_module_type_http_filter_envoy_ptr fe,
                                                  envoy_dynamic_module_type_http_filter_module_ptr fm, bool eos)
{
    (void) fe; (void) fm; (void) eos;
    return envoy_dynamic_module_type_on_http_filter_response_body_status_Continue;
}

JWTK_ENVOY_EXPORT envoy_dynamic_module_type_on_http_filter_response_trailers_status
envoy_dynamic_module_on_http_filter_response_trailers(envoy_dynamic_module_type_http_filter_envoy_ptr fe,
                                                      envoy_dynamic_module_type_http_filter_module_ptr fm)
{
    (void) fe; (void) fm;
    return envoy_dynamic_module_type_on_http_filter_response_trailers_status_Continue;
}

JWTK_ENVOY_EXPORT void envoy_dynamic_module_on_http_filter_stream_complete(
    envoy_dynamic_module_type_http_filter_envoy_ptr fe, envoy_dynamic_module_type_http_filter_module_ptr fm)
{
    (void) fe; (void) fm;
}

JWTK_ENVOY_EXPORT void envoy_dynamic_module_on_http_filter_http_callout_done(
    envoy_dynamic_module_type_http_filter_envoy_ptr fe, envoy_dynamic_module_type_http_filter_module_ptr fm,
    uint64_t id, envoy_dynamic_module_type_http_callout_result result, envoy_dynamic_module_type_envoy_http_header *h,
    size_t nh, envoy_dynamic_module_type_envoy_buffer *b, size_t nb)
{
    (void) fe; (void) fm; (void) id; (void) result; (void) h; (void) nh; (void) b; (void) nb;
}

JWTK_ENVOY_EXPORT void envoy_dynamic_module_on_http_filter_http_stream_headers(
    envoy_dynamic_module_type_http_filter_envoy_ptr fe, envoy_dynamic_module_type_http_filter_module_ptr fm,
    uint64_t id, envoy_dynamic_module_type_envoy_http_header *h, size_t nh, bool end)
{
    (void) fe; (void) fm; (void) id; (void) h; (void) nh; (void) end;
}

JWTK_ENVOY_EXPORT void envoy_dynamic_module_on_http_filter_http_stream_data(
    envoy_dynamic_module_type_http_filter_envoy_ptr fe, envoy_dynamic_module_type_http_filter_module_ptr fm,
    uint64_t id, const envoy_dynamic_module_type_envoy_buffer *d, size_t nd, bool end)
{
    (void) fe; (void) fm; (void) id; (void) d; (void) nd; (void) end;
}

JWTK_ENVOY_EXPORT void envoy_dynamic_module_on_http_filter_http_stream_trailers(
    envoy_dynamic_module_type_http_filter_envoy_ptr fe, envoy_dynamic_module_type_http_filter_module_ptr fm,
    uint64_t id, envoy_dynamic_module_type_envoy_http_header *t, size_t nt)
{
    (void) fe; (void) fm; (void) id; (void) t; (void) nt;
}

JWTK_ENVOY_EXPORT void envoy_dynamic_module_on_http_filter_http_stream_complete(
    envoy_dynamic_module_type_http_filter_envoy_ptr fe, envoy_dynamic_module_type_http_filter_module_ptr fm,
    uint64_t id)
{
    (void) fe; (void) fm; (void) id;
}

JWTK_ENVOY_EXPORT void envoy_dynamic_module_on_http_filter_http_stream_reset(
    envoy_dynamic_module_type_http_filter_envoy_ptr fe, envoy_dynamic_module_type_http_filter_module_ptr fm,
    uint64_t id, envoy_dynamic_module_type_http_stream_reset_reason reason)
{
    (void) fe; (void) fm; (void) id; (void) reason;
}

JWTK_ENVOY_EXPORT void envoy_dynamic_module_on_http_filter_scheduled(
    envoy_dynamic_module_type_http_filter_envoy_ptr fe, envoy_dynamic_module_type_http_filter_module_ptr fm,
    uint64_t id)
{
    (void) fe; (void) fm; (void) id;
}

JWTK_ENVOY_EXPORT void envoy_dynamic_module_on_http_filter_downstream_above_write_buffer_high_watermark(
    envoy_dynamic_module_type_http_filter_envoy_ptr fe, envoy_dynamic_module_type_http_filter_module_ptr fm)
{
    (void) fe; (void) fm;
}

JWTK_ENVOY_EXPORT void envoy_dynamic_module_on_http_filter_downstream_below_write_buffer_low_watermark(
    envoy_dynamic_module_type_http_filter_envoy_ptr fe, envoy_dynamic_module_type_http_filter_module_ptr fm)
{
    (void) fe; (void) fm;
}
