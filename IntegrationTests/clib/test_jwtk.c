/* The C client tests of libjwtk: every function of jwtk.h, every status the library can produce
 * from C, and bad input (NULL, zero and huge lengths, no NUL terminator, invalid UTF-8, handles of
 * the wrong kind, freed handles where detectable). Built with -Wall -Wextra -Werror; run plain,
 * under ASan and under valgrind memcheck by run.sh. Prints "c-tests: N passed, M failed".
 * Pass --freed to also call functions on freed handles (only without ASan/valgrind, which
 * rightly report that read as an error). */
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <dirent.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "jwtk.h"
#include "mint.h"

int check_passed, check_failed;

#define NOW 1700000000
#define ISS "https://issuer.example"
#define HS_HEADER "{\"alg\":\"HS256\",\"kid\":\"h1\",\"typ\":\"JWT\"}"
#define RS_HEADER "{\"alg\":\"RS256\",\"kid\":\"r1\"}"
#define GOOD_CLAIMS "{\"iss\":\"" ISS "\",\"sub\":\"user-1\",\"aud\":\"api\",\"exp\":1700003600,\"iat\":1699999990}"
#define BASE_CONFIG "{\"issuers\":[\"" ISS "\"],\"audiences\":[\"api\"],\"leeway\":0}"

static size_t len_of(const char *s) { return strlen(s); }

static int thread_count(void) {
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int n = 0;
    if (!d) return -1;
    while ((e = readdir(d)) != NULL) if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

/* The same token with one signature character changed (still canonical base64url). */
static minted tampered(minted t) {
    minted m;
    m.len = t.len;
    m.ptr = malloc(t.len);
    memcpy(m.ptr, t.ptr, t.len);
    m.ptr[t.len - 10] = m.ptr[t.len - 10] == 'A' ? 'B' : 'A';
    return m;
}

static int str_is(jwtk_str s, const char *want) {
    return s.ptr != NULL && s.len == strlen(want) && memcmp(s.ptr, want, s.len) == 0;
}

static jwtk_keystore *keystore_with(const char *issuer, const char *jwks) {
    jwtk_keystore *ks = NULL;
    jwtk_keystore_new(&ks);
    jwtk_keystore_load_jwks(ks, issuer, issuer ? strlen(issuer) : 0, jwks, strlen(jwks));
    return ks;
}

static jwtk_verifier *verifier_with(jwtk_keystore *ks, const char *config) {
    jwtk_verifier *v = NULL;
    int rc = jwtk_verifier_new(config, strlen(config), ks, &v);
    CHECK(rc == JWTK_OK && v != NULL, "verifier_new(%s): %s", config, jwtk_status_name(rc));
    return v;
}

/* Verifies a freshly minted token and checks the status. */
static void expect(jwtk_verifier *v, jwtk_ctx *ctx, const char *alg, const char *header, const char *claims,
                   int want, const char *what) {
    minted t = mint_token(alg, header, claims);
    jwtk_claims out;
    memset(&out, 0, sizeof out);
    out.struct_size = sizeof out;
    CHECK_STATUS(jwtk_verify(v, ctx, t.ptr, t.len, NOW, &out), want, what);
    mint_free(t);
}

static void test_version(void) {
    CHECK(strcmp(jwtk_version(), JWTK_VERSION) == 0, "version %s", jwtk_version());
    CHECK(jwtk_version_number() == JWTK_VERSION_NUMBER, "version number %d", jwtk_version_number());
}

/* bearer: 0 none, 1 "invalid_token", 2 "insufficient_scope" */
struct status_row { int code; const char *name; int http; int bearer; };

static const struct status_row statuses[] = {
    {JWTK_OK, "ok", 200, 0},
    {JWTK_MALFORMED, "malformed", 401, 1}, {JWTK_TOO_LARGE, "too_large", 401, 1},
    {JWTK_UNSUPPORTED_ALG, "unsupported_alg", 401, 1}, {JWTK_ALG_NOT_ALLOWED, "alg_not_allowed", 401, 1},
    {JWTK_UNKNOWN_KID, "unknown_kid", 401, 1}, {JWTK_KEY_ALG_MISMATCH, "key_alg_mismatch", 401, 1},
    {JWTK_BAD_SIGNATURE, "bad_signature", 401, 1}, {JWTK_EXPIRED, "expired", 401, 1},
    {JWTK_NOT_YET_VALID, "not_yet_valid", 401, 1}, {JWTK_BAD_ISSUER, "bad_issuer", 401, 1},
    {JWTK_BAD_AUDIENCE, "bad_audience", 401, 1}, {JWTK_MISSING_CLAIM, "missing_claim", 401, 1},
    {JWTK_BAD_CLAIM_TYPE, "bad_claim_type", 401, 1}, {JWTK_CRIT_UNSUPPORTED, "crit_unsupported", 401, 1},
    {JWTK_BAD_TYP, "bad_typ", 401, 1}, {JWTK_BAD_NONCE, "bad_nonce", 401, 1},
    {JWTK_ISSUED_IN_FUTURE, "issued_in_future", 401, 1}, {JWTK_UNKNOWN_ISSUER, "unknown_issuer", 401, 1},
    {JWTK_KEYS_UNAVAILABLE, "keys_unavailable", 503, 0},
    {JWTK_CLAIM_REQUIREMENT_FAILED, "claim_requirement_failed", 403, 2},
    {JWTK_DECRYPTION_FAILED, "decryption_failed", 401, 1},
    {JWTK_MALFORMED_KEY, "malformed_key", 500, 0}, {JWTK_UNSUPPORTED_KEY_TYPE, "unsupported_key_type", 500, 0},
    {JWTK_WEAK_KEY, "weak_key", 500, 0}, {JWTK_COMPROMISED_KEY, "compromised_key", 500, 0},
    {JWTK_WRONG_KEY_USE, "wrong_key_use", 500, 0}, {JWTK_AMBIGUOUS_KID, "ambiguous_kid", 500, 0},
    {JWTK_INVALID_CERTIFICATE, "invalid_certificate", 500, 0},
    {JWTK_DECLARED_ALG_MISMATCH, "declared_alg_mismatch", 500, 0},
    {JWTK_MIXED_KEY_TYPES, "mixed_key_types", 500, 0}, {JWTK_NOT_A_KEY_SET, "not_a_key_set", 500, 0},
    {JWTK_KEY_RESOURCE_FAILURE, "key_resource_failure", 500, 0},
    {JWTK_E_NULL, "null_argument", 500, 0}, {JWTK_E_HANDLE, "bad_handle", 500, 0},
    {JWTK_E_LENGTH, "bad_length", 500, 0}, {JWTK_E_UTF8, "bad_utf8", 500, 0},
    {JWTK_E_CONFIG, "bad_config", 500, 0}, {JWTK_E_STRUCT_SIZE, "bad_struct_size", 500, 0},
    {JWTK_E_NO_TOKEN, "no_token", 500, 0}, {JWTK_E_UNAVAILABLE, "not_available", 500, 0},
    {JWTK_E_RANGE, "out_of_range", 500, 0}, {JWTK_E_SYNTAX, "bad_syntax", 500, 0},
    {22, "unknown", 500, 0}, {99, "unknown", 500, 0}, {112, "unknown", 500, 0}, {-11, "unknown", 500, 0},
    {INT32_MAX, "unknown", 500, 0}, {INT32_MIN, "unknown", 500, 0},
};

static void test_status_helpers(void) {
    size_t i;
    for (i = 0; i < sizeof statuses / sizeof statuses[0]; i++) {
        const struct status_row *r = &statuses[i];
        const char *bearer = jwtk_status_bearer_error(r->code);
        const char *text = jwtk_errstr(r->code);
        CHECK(strcmp(jwtk_status_name(r->code), r->name) == 0, "name of %d: %s", r->code, jwtk_status_name(r->code));
        CHECK(text != NULL && strlen(text) > 5, "errstr of %d", r->code);
        CHECK(jwtk_status_http(r->code) == r->http, "http of %d: %d", r->code, jwtk_status_http(r->code));
        CHECK(r->bearer ? (bearer && strcmp(bearer, r->bearer == 1 ? "invalid_token" : "insufficient_scope") == 0)
                        : bearer == NULL, "bearer of %d", r->code);
    }
}

/* The gateway contract's argument rules (the grammar and the rendering are the shared corpus's, answered by
 * test_jwtk.py through the same functions): NULLs, lengths, a buffer too small, measuring. */
static void test_gateway_contract(void) {
    jwtk_str t = {"x", 1};
    char buf[64];
    size_t n = 99;
    const char *h = "Bearer a.b.c";
    CHECK_STATUS(jwtk_bearer_token(h, strlen(h), &t), JWTK_OK, "bearer");
    CHECK(t.len == 5 && t.ptr == h + 7, "token points into the value");
    CHECK_STATUS(jwtk_bearer_token("Bearer\ta", 8, &t), JWTK_OK, "a tab: no token, not an error");
    CHECK(t.ptr == NULL && t.len == 0, "no bearer token: NULL, 0");
    CHECK_STATUS(jwtk_bearer_token(NULL, 0, &t), JWTK_OK, "empty value");
    CHECK(t.ptr == NULL && t.len == 0, "empty value: no token");
    CHECK_STATUS(jwtk_bearer_token(NULL, 3, &t), JWTK_E_NULL, "NULL value with a length");
    CHECK_STATUS(jwtk_bearer_token(h, strlen(h), NULL), JWTK_E_NULL, "NULL out");
    {   /* The cookie grammar (RFC 6265 cookie-string): first pair of the name, DQUOTEs taken off. */
        const char *ck = "xjwt=no; jwt=\"ab.c\" ;jwt=second; bare; e=";
        CHECK_STATUS(jwtk_cookie_value(ck, strlen(ck), "jwt", 3, &t), JWTK_OK, "cookie");
        CHECK(t.len == 4 && t.ptr == strstr(ck, "ab.c"), "cookie value points into the header, unquoted");
        CHECK_STATUS(jwtk_cookie_value(ck, strlen(ck), "e", 1, &t), JWTK_OK, "empty cookie");
        CHECK(t.ptr != NULL && t.len == 0, "an empty value is present, len 0");
        CHECK_STATUS(jwtk_cookie_value(ck, strlen(ck), "bare", 4, &t), JWTK_OK, "a pair without =");
        CHECK(t.ptr == NULL && t.len == 0, "a pair without = is no cookie");
        CHECK_STATUS(jwtk_cookie_value(ck, strlen(ck), "wt", 2, &t), JWTK_OK, "a name suffix");
        CHECK(t.ptr == NULL && t.len == 0, "a suffix of a name matches nothing");
        CHECK_STATUS(jwtk_cookie_value(NULL, 0, "jwt", 3, &t), JWTK_OK, "no header");
        CHECK(t.ptr == NULL && t.len == 0, "no header: absent");
        CHECK_STATUS(jwtk_cookie_value(NULL, 4, "jwt", 3, &t), JWTK_E_NULL, "NULL header with a length");
        CHECK_STATUS(jwtk_cookie_value(ck, strlen(ck), NULL, 3, &t), JWTK_E_NULL, "NULL name with a length");
        CHECK_STATUS(jwtk_cookie_value(ck, strlen(ck), "jwt", 3, NULL), JWTK_E_NULL, "NULL out (cookie)");
    }
    CHECK_STATUS(jwtk_challenge(JWTK_EXPIRED, "api", 3, NULL, 0, buf, sizeof buf, &n), JWTK_OK, "challenge");
    CHECK(n == strlen("Bearer realm=\"api\", error=\"invalid_token\"")
          && memcmp(buf, "Bearer realm=\"api\", error=\"invalid_token\"", n) == 0, "challenge bytes");
    CHECK_STATUS(jwtk_challenge(JWTK_E_NO_TOKEN, "api", 3, NULL, 0, buf, 5, &n), JWTK_E_LENGTH, "too small");
    CHECK(n == strlen("Bearer realm=\"api\"") && memcmp(buf, "Beare", 5) == 0, "the length needed; a prefix");
    CHECK_STATUS(jwtk_challenge(JWTK_E_NO_TOKEN, "api", 3, NULL, 0, NULL, 0, &n), JWTK_E_LENGTH, "measure");
    CHECK(n == strlen("Bearer realm=\"api\""), "measured");
    CHECK_STATUS(jwtk_challenge(JWTK_KEYS_UNAVAILABLE, "api", 3, NULL, 0, buf, sizeof buf, &n), JWTK_OK, "503");
    CHECK(n == 0, "no challenge for keys_unavailable");
    CHECK_STATUS(jwtk_challenge(JWTK_OK, "api", 3, NULL, 0, NULL, 0, &n), JWTK_OK, "ok");
    CHECK(n == 0, "no challenge for a valid token");
    CHECK_STATUS(jwtk_challenge(JWTK_EXPIRED, NULL, 3, NULL, 0, buf, sizeof buf, &n), JWTK_E_NULL, "NULL realm");
    CHECK_STATUS(jwtk_challenge(JWTK_EXPIRED, "api", 3, NULL, 0, buf, sizeof buf, NULL), JWTK_E_NULL, "NULL out");
    CHECK_STATUS(jwtk_challenge(JWTK_EXPIRED, "api", 3, NULL, 0, NULL, 8, &n), JWTK_E_NULL, "NULL buf, cap 8");
}

static void test_handles_and_nulls(void) {
    jwtk_keystore *ks = NULL;
    jwtk_verifier *v = NULL;
    jwtk_ctx *ctx = NULL;
    jwtk_claims out;
    jwtk_stats stats;
    jwtk_str value;
    int type, st;
    CHECK_STATUS(jwtk_keystore_new(NULL), JWTK_E_NULL, "keystore_new(NULL)");
    CHECK_STATUS(jwtk_ctx_new(NULL), JWTK_E_NULL, "ctx_new(NULL)");
    CHECK_STATUS(jwtk_keystore_new(&ks), JWTK_OK, "keystore_new");
    CHECK_STATUS(jwtk_ctx_new(&ctx), JWTK_OK, "ctx_new");
    CHECK_STATUS(jwtk_verifier_new("{}", 2, ks, NULL), JWTK_E_NULL, "verifier_new out NULL");
    CHECK_STATUS(jwtk_verifier_new("{}", 2, NULL, &v), JWTK_E_NULL, "verifier_new ks NULL");
    CHECK_STATUS(jwtk_verifier_new("{}", 2, (jwtk_keystore *)ctx, &v), JWTK_E_HANDLE, "verifier_new ks is a ctx");
    CHECK(v == NULL, "out stays NULL on failure");
    CHECK_STATUS(jwtk_verifier_new("{}", 2, ks, &v), JWTK_OK, "verifier_new {}");
    /* Every function with NULL and with a handle of the wrong kind. */
    CHECK_STATUS(jwtk_keystore_load_jwks(NULL, NULL, 0, "{}", 2), JWTK_E_NULL, "load ks NULL");
    CHECK_STATUS(jwtk_keystore_load_jwks((jwtk_keystore *)v, NULL, 0, "{}", 2), JWTK_E_HANDLE, "load ks is a verifier");
    CHECK_STATUS(jwtk_keystore_load_jwks_ex(ks, NULL, 0, "{}", 2, (jwtk_ctx *)ks), JWTK_E_HANDLE, "load_ex ctx is a keystore");
    CHECK_STATUS(jwtk_keystore_start(NULL), JWTK_E_NULL, "start NULL");
    CHECK_STATUS(jwtk_keystore_start((jwtk_keystore *)ctx), JWTK_E_HANDLE, "start ctx");
    CHECK_STATUS(jwtk_keystore_start(ks), JWTK_OK, "start with no remote source: nothing to do");
    CHECK_STATUS(jwtk_keystore_start(ks), JWTK_OK, "start is idempotent");
    CHECK_STATUS(jwtk_verify(NULL, ctx, "a", 1, 0, NULL), JWTK_E_NULL, "verify v NULL");
    CHECK_STATUS(jwtk_verify(v, NULL, "a", 1, 0, NULL), JWTK_E_NULL, "verify ctx NULL");
    CHECK_STATUS(jwtk_verify((jwtk_verifier *)ks, ctx, "a", 1, 0, NULL), JWTK_E_HANDLE, "verify v is a keystore");
    CHECK_STATUS(jwtk_verify(v, (jwtk_ctx *)v, "a", 1, 0, NULL), JWTK_E_HANDLE, "verify ctx is a verifier");
    CHECK_STATUS(jwtk_verify(v, ctx, NULL, 10, 0, NULL), JWTK_E_NULL, "verify token NULL");
    CHECK_STATUS(jwtk_verify(v, ctx, "a.b.c", 5, -1, NULL), JWTK_E_RANGE, "verify now negative");
    memset(&out, 0, sizeof out);
    out.struct_size = 8;
    CHECK_STATUS(jwtk_verify(v, ctx, "a.b.c", 5, 0, &out), JWTK_E_STRUCT_SIZE, "verify struct_size too small");
    CHECK_STATUS(jwtk_verify_batch(NULL, NULL, NULL, 1, 0, NULL), JWTK_E_NULL, "batch v NULL");
    CHECK_STATUS(jwtk_verify_batch((jwtk_verifier *)ctx, NULL, NULL, 1, 0, NULL), JWTK_E_HANDLE, "batch v ctx");
    CHECK_STATUS(jwtk_verify_batch(v, NULL, NULL, 1, 0, &st), JWTK_E_NULL, "batch arrays NULL");
    CHECK_STATUS(jwtk_claim(NULL, "sub", 3, &value, &type), JWTK_E_NULL, "claim ctx NULL");
    CHECK_STATUS(jwtk_claim((jwtk_ctx *)v, "sub", 3, &value, &type), JWTK_E_HANDLE, "claim ctx is a verifier");
    CHECK_STATUS(jwtk_claim(ctx, "sub", 3, NULL, &type), JWTK_E_NULL, "claim value NULL");
    CHECK_STATUS(jwtk_claim(ctx, "sub", 3, &value, NULL), JWTK_E_NULL, "claim type NULL");
    CHECK_STATUS(jwtk_stats_get(NULL, &stats), JWTK_E_NULL, "stats v NULL");
    CHECK_STATUS(jwtk_stats_get((jwtk_verifier *)ks, &stats), JWTK_E_HANDLE, "stats v keystore");
    CHECK_STATUS(jwtk_stats_get(v, NULL), JWTK_E_NULL, "stats out NULL");
    stats.struct_size = 4;
    CHECK_STATUS(jwtk_stats_get(v, &stats), JWTK_E_STRUCT_SIZE, "stats struct_size too small");
    {
        /* Memory that was never a handle. */
        uint64_t junk[4] = {0, 0, 0, 0};
        CHECK_STATUS(jwtk_verify((jwtk_verifier *)junk, ctx, "a.b.c", 5, 0, NULL), JWTK_E_HANDLE, "verify junk verifier");
        CHECK_STATUS(jwtk_keystore_start((jwtk_keystore *)junk), JWTK_E_HANDLE, "junk keystore");
        jwtk_ctx_free((jwtk_ctx *)junk);
        CHECK(junk[0] == 0 && junk[1] == 0, "freeing junk touches nothing");
    }
    CHECK(jwtk_ctx_errmsg(NULL) != NULL, "errmsg(NULL) is a static string");
    CHECK(jwtk_ctx_errmsg((jwtk_ctx *)ks) != NULL, "errmsg(wrong kind) is a static string");
    /* Freeing NULL, and a handle of the wrong kind, does nothing. */
    jwtk_keystore_free(NULL);
    jwtk_verifier_free(NULL);
    jwtk_ctx_free(NULL);
    jwtk_ctx_free((jwtk_ctx *)ks);
    jwtk_keystore_free((jwtk_keystore *)v);
    CHECK_STATUS(jwtk_keystore_start(ks), JWTK_OK, "keystore survives a wrong-kind free");
    /* The verifier keeps its keystore alive after the keystore handle is freed. */
    jwtk_keystore_free(ks);
    CHECK_STATUS(jwtk_verify(v, ctx, "a.b.c", 5, 0, NULL), JWTK_MALFORMED, "verifier outlives its keystore handle");
    jwtk_verifier_free(v);
    jwtk_ctx_free(ctx);
}

static void test_keystore_loads(void) {
    jwtk_keystore *ks = NULL;
    jwtk_ctx *ctx = NULL;
    jwtk_verifier *v;
    const char *hs = mint_hmac_jwks();
    char no_nul[2] = {'{', '}'};
    jwtk_keystore_new(&ks);
    jwtk_ctx_new(&ctx);
    CHECK_STATUS(jwtk_keystore_load_jwks(ks, NULL, 0, NULL, 5), JWTK_E_NULL, "jwks NULL");
    CHECK_STATUS(jwtk_keystore_load_jwks(ks, NULL, 0, hs, 0), JWTK_E_LENGTH, "jwks length 0");
    CHECK_STATUS(jwtk_keystore_load_jwks(ks, NULL, 0, hs, SIZE_MAX), JWTK_E_LENGTH, "jwks length SIZE_MAX");
    CHECK_STATUS(jwtk_keystore_load_jwks(ks, NULL, 0, hs, (size_t)1 << 40), JWTK_E_LENGTH, "jwks length 1 TiB");
    CHECK_STATUS(jwtk_keystore_load_jwks(ks, NULL, 5, hs, len_of(hs)), JWTK_E_NULL, "issuer NULL with a length");
    CHECK_STATUS(jwtk_keystore_load_jwks(ks, "x", 0, hs, len_of(hs)), JWTK_E_LENGTH, "issuer with length 0");
    CHECK_STATUS(jwtk_keystore_load_jwks(ks, "\xff\xfe", 2, hs, len_of(hs)), JWTK_E_UTF8, "issuer not UTF-8");
    CHECK_STATUS(jwtk_keystore_load_jwks(ks, "\xed\xa0\x80", 3, hs, len_of(hs)), JWTK_E_UTF8, "issuer with a surrogate");
    CHECK_STATUS(jwtk_keystore_load_jwks(ks, "x", SIZE_MAX, hs, len_of(hs)), JWTK_E_LENGTH, "issuer length SIZE_MAX");
    CHECK_STATUS(jwtk_keystore_load_jwks_ex(ks, NULL, 0, no_nul, sizeof no_nul, ctx), JWTK_NOT_A_KEY_SET, "{} (no NUL)");
    CHECK(strstr(jwtk_ctx_errmsg(ctx), "old keys kept") != NULL, "errmsg: %s", jwtk_ctx_errmsg(ctx));
    CHECK_STATUS(jwtk_keystore_load_jwks(ks, NULL, 0, "not json", 8), JWTK_NOT_A_KEY_SET, "not JSON");
    CHECK_STATUS(jwtk_keystore_load_jwks(ks, NULL, 0, "{\"keys\":[]}", 11), JWTK_NOT_A_KEY_SET, "empty JWKS");
    CHECK_STATUS(jwtk_keystore_load_jwks(ks, NULL, 0, "{\"keys\":\"x\"}", 12), JWTK_NOT_A_KEY_SET, "keys not an array");
    {
        const char *weak = "{\"keys\":[{\"kty\":\"oct\",\"kid\":\"w\",\"alg\":\"HS256\",\"k\":\"c2hvcnQ\"}]}";
        const char *wrong_use = "{\"keys\":[{\"kty\":\"oct\",\"kid\":\"u\",\"use\":\"enc\",\"alg\":\"HS256\",\"k\":\"MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY\"}]}";
        const char *bad_type = "{\"keys\":[{\"kty\":\"XYZ\",\"kid\":\"t\"}]}";
        const char *malformed = "{\"keys\":[{\"kty\":\"RSA\",\"kid\":\"m\",\"n\":\"!!\",\"e\":\"AQAB\"}]}";
        const char *cert = "{\"c1\":\"-----BEGIN CERTIFICATE-----\\nAAAA\\n-----END CERTIFICATE-----\\n\"}";
        const char *declared = "{\"keys\":[{\"kty\":\"oct\",\"kid\":\"d\",\"alg\":\"RS256\",\"k\":\"MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY\"}]}";
        CHECK_STATUS(jwtk_keystore_load_jwks_ex(ks, NULL, 0, weak, len_of(weak), ctx), JWTK_WEAK_KEY, "weak HMAC secret");
        CHECK(strstr(jwtk_ctx_errmsg(ctx), "c2hvcnQ") == NULL, "errmsg never echoes key bytes: %s", jwtk_ctx_errmsg(ctx));
        CHECK_STATUS(jwtk_keystore_load_jwks(ks, NULL, 0, wrong_use, len_of(wrong_use)), JWTK_WRONG_KEY_USE, "use enc");
        CHECK_STATUS(jwtk_keystore_load_jwks(ks, NULL, 0, bad_type, len_of(bad_type)), JWTK_UNSUPPORTED_KEY_TYPE, "kty XYZ");
        CHECK_STATUS(jwtk_keystore_load_jwks(ks, NULL, 0, malformed, len_of(malformed)), JWTK_MALFORMED_KEY, "bad n");
        CHECK_STATUS(jwtk_keystore_load_jwks(ks, NULL, 0, cert, len_of(cert)), JWTK_INVALID_CERTIFICATE, "bad certificate");
        CHECK_STATUS(jwtk_keystore_load_jwks(ks, NULL, 0, declared, len_of(declared)), JWTK_DECLARED_ALG_MISMATCH, "oct with RS256");
        {
            /* An Ed25519 key of small order (here the identity): anyone signs for it (R = identity, S = 0). */
            const char *low = "{\"keys\":[{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"kid\":\"low-order\","
                              "\"x\":\"AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\"}]}";
            CHECK_STATUS(jwtk_keystore_load_jwks_ex(ks, NULL, 0, low, len_of(low), ctx), JWTK_WEAK_KEY, "Ed25519 identity");
            CHECK(strstr(jwtk_ctx_errmsg(ctx), "low-order") != NULL && strstr(jwtk_ctx_errmsg(ctx), "small order") != NULL,
                  "the refusal names the key and the rule: %s", jwtk_ctx_errmsg(ctx));
        }
    }
    {
        /* JWTK_LOAD_ALLOW_SHORT_HMAC_SECRETS: a 12-byte secret (NGINX Plus's admin guide example) is refused
         * without the flag (as by every other load function) and loads with it, one warning naming the key
         * and the rule; unknown flag bits load nothing. */
        static const unsigned char secret[] = "fantasticjwt";
        const char *short_jwks = "{\"keys\":[{\"kty\":\"oct\",\"kid\":\"0001\",\"k\":\"ZmFudGFzdGljand0\"}]}";
        jwtk_str doc;
        jwtk_keystore *sks = NULL;
        jwtk_verifier *sv;
        minted st = mint_token_hs256_key(secret, 12, "{\"alg\":\"HS256\",\"kid\":\"0001\"}", GOOD_CLAIMS);
        doc.ptr = short_jwks;
        doc.len = strlen(short_jwks);
        jwtk_keystore_new(&sks);
        CHECK_STATUS(jwtk_keystore_load_jwks_ex(sks, NULL, 0, short_jwks, doc.len, ctx), JWTK_WEAK_KEY, "short secret");
        CHECK_STATUS(jwtk_keystore_load_jwks_flags(sks, NULL, 0, &doc, 1, 0, ctx), JWTK_WEAK_KEY, "short secret, flags 0");
        CHECK_STATUS(jwtk_keystore_load_jwks_flags(sks, NULL, 0, &doc, 1, 0x80u, ctx), JWTK_E_RANGE, "unknown flag bits");
        CHECK_STATUS(jwtk_keystore_load_jwks_flags(sks, NULL, 0, &doc, 1, JWTK_LOAD_ALLOW_SHORT_HMAC_SECRETS, ctx), JWTK_OK,
                     jwtk_ctx_errmsg(ctx));
        CHECK(strstr(jwtk_ctx_errmsg(ctx), "\"0001\"") != NULL && strstr(jwtk_ctx_errmsg(ctx), "RFC 7518") != NULL &&
                  strstr(jwtk_ctx_errmsg(ctx), "warning") != NULL,
              "one warning naming the key and the rule: %s", jwtk_ctx_errmsg(ctx));
        sv = verifier_with(sks, BASE_CONFIG);
        CHECK_STATUS(jwtk_verify(sv, ctx, st.ptr, st.len, NOW, NULL), JWTK_OK, "a token of the short secret");
        jwtk_verifier_free(sv);
        jwtk_keystore_free(sks);
        mint_free(st);
    }
    {
        /* Two different keys under one kid: both refused, nothing usable. */
        const char *rsa = mint_rsa_jwks(), *rsa2 = mint_rsa2_jwks();
        size_t a = strlen(rsa), b = strlen(rsa2);
        char *both = malloc(a + b + 16);
        char *second = strstr(rsa2, "{\"kty\"");
        snprintf(both, a + b + 16, "%.*s,%s", (int)(a - 2), rsa, second);
        /* Rename r2's kid to r1. */
        memcpy(strstr(both + a, "\"r2\""), "\"r1\"", 4);
        CHECK_STATUS(jwtk_keystore_load_jwks(ks, NULL, 0, both, strlen(both)), JWTK_AMBIGUOUS_KID, "two keys share a kid");
        /* An HMAC secret next to public keys: the secret is refused, the public key loads. */
        snprintf(both, a + b + 16, "%.*s,%s", (int)(a - 2), rsa, strstr(mint_hmac_jwks(), "{\"kty\""));
        CHECK_STATUS(jwtk_keystore_load_jwks_ex(ks, NULL, 0, both, strlen(both), ctx), JWTK_OK, "mixed key types load the public key");
        CHECK(strstr(jwtk_ctx_errmsg(ctx), "mixed_key_types") != NULL, "refused keys are listed: %s", jwtk_ctx_errmsg(ctx));
        free(both);
    }
    {
        /* {kid: PEM} maps whose value has whitespace, a byte order mark or text before -----BEGIN (RFC 7468
         * section 2; Envoy's jwt_verify_lib vectors start with a newline); two blocks in one value are refused. */
        const char *prefixes[] = {"\\n", "  \\r\\n\\t", "\\ufeff", "\xef\xbb\xbf", "Subject: test key\\n"};
        size_t i;
        for (i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
            jwtk_keystore *pks = NULL;
            char *map = mint_rsa_pem_map("r1", prefixes[i]);
            jwtk_keystore_new(&pks);
            CHECK_STATUS(jwtk_keystore_load_jwks_ex(pks, NULL, 0, map, strlen(map), ctx), JWTK_OK, jwtk_ctx_errmsg(ctx));
            v = verifier_with(pks, BASE_CONFIG);
            expect(v, ctx, "RS256", RS_HEADER, GOOD_CLAIMS, JWTK_OK, prefixes[i]);
            jwtk_verifier_free(v);
            jwtk_keystore_free(pks);
            free(map);
        }
        {
            char *one = mint_rsa_pem_map("r1", ""), *two;
            size_t n = strlen(one);
            char *begin = strstr(one, "-----BEGIN");
            two = malloc(2 * n);
            /* The value twice: "{"r1":"PEM PEM"}". */
            snprintf(two, 2 * n, "%.*s%.*s", (int)(n - 2), one, (int)(strlen(begin)), begin);
            CHECK_STATUS(jwtk_keystore_load_jwks_ex(ks, NULL, 0, two, strlen(two), ctx), JWTK_MALFORMED_KEY, "two PEM blocks");
            CHECK(strstr(jwtk_ctx_errmsg(ctx), "blocks") != NULL, "errmsg: %s", jwtk_ctx_errmsg(ctx));
            free(one);
            free(two);
        }
    }
    {
        /* A PEM public key file loads as the CLI's --jwks reads it (one rule: KeyDocument), alone and among
         * other documents; its key has no kid, so it verifies tokens without one and tokens whose kid no key has. A private key PEM is
         * refused, saying what it is and what to give instead; the old keys stay. */
        jwtk_keystore *pks = NULL;
        char *pub = mint_rsa_pem(0), *priv = mint_rsa_pem(1);
        jwtk_str docs[2];
        jwtk_keystore_new(&pks);
        CHECK_STATUS(jwtk_keystore_load_jwks_ex(pks, NULL, 0, pub, strlen(pub), ctx), JWTK_OK, jwtk_ctx_errmsg(ctx));
        v = verifier_with(pks, BASE_CONFIG);
        expect(v, ctx, "RS256", "{\"alg\":\"RS256\"}", GOOD_CLAIMS, JWTK_OK, "PEM public key file");
        /* A key without kid is a candidate for any token whose kid no key has (issuers put a kid in every
         * token); the key still pins its type: an HS256 header finds no candidate. */
        expect(v, ctx, "RS256", "{\"alg\":\"RS256\",\"kid\":\"issuer-kid-7\"}", GOOD_CLAIMS, JWTK_OK,
               "PEM key, token with a kid");
        expect(v, ctx, "HS256", "{\"alg\":\"HS256\",\"kid\":\"issuer-kid-7\"}", GOOD_CLAIMS, JWTK_UNKNOWN_KID,
               "PEM RSA key, HS256 token");
        CHECK_STATUS(jwtk_keystore_load_jwks_ex(pks, NULL, 0, priv, strlen(priv), ctx), JWTK_NOT_A_KEY_SET, "private PEM");
        CHECK(strstr(jwtk_ctx_errmsg(ctx), "private key") != NULL && strstr(jwtk_ctx_errmsg(ctx), "-pubout") != NULL,
              "errmsg says what it is and what to use: %s", jwtk_ctx_errmsg(ctx));
        expect(v, ctx, "RS256", "{\"alg\":\"RS256\"}", GOOD_CLAIMS, JWTK_OK, "old keys kept");
        docs[0].ptr = mint_hmac_jwks();
        docs[0].len = strlen(docs[0].ptr);
        docs[1].ptr = pub;
        docs[1].len = strlen(pub);
        CHECK_STATUS(jwtk_keystore_load_jwks_many(pks, NULL, 0, docs, 2, ctx), JWTK_OK, jwtk_ctx_errmsg(ctx));
        expect(v, ctx, "RS256", "{\"alg\":\"RS256\"}", GOOD_CLAIMS, JWTK_OK, "PEM among JSON documents");
        jwtk_verifier_free(v);
        jwtk_keystore_free(pks);
        free(pub);
        free(priv);
    }
    /* A failed load keeps the keys: the RSA key from the mixed load still verifies. */
    CHECK_STATUS(jwtk_keystore_load_jwks(ks, NULL, 0, "[]", 2), JWTK_NOT_A_KEY_SET, "array is not a key set");
    v = verifier_with(ks, BASE_CONFIG);
    expect(v, ctx, "RS256", RS_HEADER, GOOD_CLAIMS, JWTK_OK, "old keys kept after failed loads");
    jwtk_verifier_free(v);
    jwtk_keystore_free(ks);
    jwtk_ctx_free(ctx);
}

/* jwtk_keystore_load_jwks_many: several documents published together, all or nothing. */
static void test_keystore_load_many(void) {
    jwtk_keystore *ks = NULL;
    jwtk_ctx *ctx = NULL;
    jwtk_verifier *v;
    minted t;
    const char *rsa = mint_rsa_jwks(), *rsa2 = mint_rsa2_jwks(), *hs = mint_hmac_jwks();
    jwtk_str docs[3] = {{rsa, strlen(rsa)}, {rsa2, strlen(rsa2)}, {hs, strlen(hs)}};
    jwtk_str bad[2] = {{rsa, strlen(rsa)}, {"[]", 2}};
    jwtk_str nul[2] = {{rsa, strlen(rsa)}, {NULL, 4}};
    jwtk_keystore_new(&ks);
    jwtk_ctx_new(&ctx);
    CHECK_STATUS(jwtk_keystore_load_jwks_many(ks, NULL, 0, NULL, 1, ctx), JWTK_E_NULL, "docs NULL");
    CHECK_STATUS(jwtk_keystore_load_jwks_many(ks, NULL, 0, docs, 0, ctx), JWTK_E_LENGTH, "n 0");
    CHECK_STATUS(jwtk_keystore_load_jwks_many(ks, NULL, 0, docs, 1025, ctx), JWTK_E_LENGTH, "n above 1024");
    CHECK_STATUS(jwtk_keystore_load_jwks_many(ks, NULL, 0, nul, 2, ctx), JWTK_E_NULL, "a NULL document");
    CHECK(strstr(jwtk_ctx_errmsg(ctx), "#2") != NULL, "the NULL document is named by position: %s", jwtk_ctx_errmsg(ctx));
    CHECK_STATUS(jwtk_keystore_load_jwks_many((jwtk_keystore *)ctx, NULL, 0, docs, 1, NULL), JWTK_E_HANDLE, "not a keystore");
    /* Three documents, one key set: both RSA keys and the HMAC secret verify. */
    CHECK_STATUS(jwtk_keystore_load_jwks_many(ks, NULL, 0, docs, 3, ctx), JWTK_OK, "three documents");
    v = verifier_with(ks, BASE_CONFIG);
    expect(v, ctx, "RS256", RS_HEADER, GOOD_CLAIMS, JWTK_OK, "key of document 1");
    t = mint_token_rsa2("{\"alg\":\"RS256\",\"kid\":\"r2\"}", GOOD_CLAIMS);
    CHECK_STATUS(jwtk_verify(v, ctx, t.ptr, t.len, NOW, NULL), JWTK_OK, "key of document 2");
    mint_free(t);
    expect(v, ctx, "HS256", HS_HEADER, GOOD_CLAIMS, JWTK_OK, "key of document 3");
    /* One document that is not a key set: nothing published, the three documents' keys stay. */
    CHECK_STATUS(jwtk_keystore_load_jwks_many(ks, NULL, 0, bad, 2, ctx), JWTK_NOT_A_KEY_SET, "a bad second document");
    CHECK(strstr(jwtk_ctx_errmsg(ctx), "key set #2") != NULL && strstr(jwtk_ctx_errmsg(ctx), "old keys kept") != NULL,
          "the message names the document: %s", jwtk_ctx_errmsg(ctx));
    expect(v, ctx, "HS256", HS_HEADER, GOOD_CLAIMS, JWTK_OK, "old keys kept after a failed load");
    /* The same document twice is one key set; loading only the first drops the others. */
    {
        jwtk_str twice[2] = {{rsa, strlen(rsa)}, {rsa, strlen(rsa)}};
        CHECK_STATUS(jwtk_keystore_load_jwks_many(ks, NULL, 0, twice, 2, ctx), JWTK_OK, "the same key twice");
        CHECK(strcmp(jwtk_ctx_errmsg(ctx), "") == 0, "nothing refused: %s", jwtk_ctx_errmsg(ctx));
        expect(v, ctx, "RS256", RS_HEADER, GOOD_CLAIMS, JWTK_OK, "the key loaded twice verifies");
        expect(v, ctx, "HS256", HS_HEADER, GOOD_CLAIMS, JWTK_UNKNOWN_KID, "replaced: the secret is gone");
    }
    /* A kid naming different keys in two documents: refused in both, the rest loads. */
    {
        char *renamed = strdup(rsa2);
        jwtk_str clash[3] = {{rsa, strlen(rsa)}, {renamed, strlen(renamed)}, {hs, strlen(hs)}};
        memcpy(strstr(renamed, "\"r2\""), "\"r1\"", 4);
        CHECK_STATUS(jwtk_keystore_load_jwks_many(ks, NULL, 0, clash, 3, ctx), JWTK_OK, "a kid in two documents");
        CHECK(strstr(jwtk_ctx_errmsg(ctx), "ambiguous_kid") != NULL, "listed as ambiguous: %s", jwtk_ctx_errmsg(ctx));
        expect(v, ctx, "RS256", RS_HEADER, GOOD_CLAIMS, JWTK_UNKNOWN_KID, "neither r1 is trusted");
        expect(v, ctx, "HS256", HS_HEADER, GOOD_CLAIMS, JWTK_OK, "the third document's key is");
        free(renamed);
    }
    jwtk_verifier_free(v);
    jwtk_keystore_free(ks);
    jwtk_ctx_free(ctx);
}

static void test_config(void) {
    jwtk_keystore *ks = NULL;
    jwtk_ctx *ctx = NULL;
    jwtk_verifier *v = NULL;
    struct { const char *config; int status; const char *mention; } rows[] = {
        {"not json", JWTK_E_CONFIG, "not valid JSON"},
        {"[]", JWTK_E_CONFIG, "object"},
        {"{\"issuer\":[\"x\"]}", JWTK_E_CONFIG, "\"issuer\""},
        {"{\"leeway\":\"60\"}", JWTK_E_CONFIG, "leeway"},
        {"{\"leeway\":-1}", JWTK_E_CONFIG, "leeway"},
        {"{\"leeway\":1.5}", JWTK_E_CONFIG, "leeway"},
        {"{\"audiences\":\"api\"}", JWTK_E_CONFIG, "audiences"},
        {"{\"audiences\":[1]}", JWTK_E_CONFIG, "audiences"},
        {"{\"algorithms\":[\"none\"]}", JWTK_E_CONFIG, "none"},
        {"{\"algorithms\":[]}", JWTK_E_CONFIG, "algorithms"},
        {"{\"require_exp\":1}", JWTK_E_CONFIG, "require_exp"},
        {"{\"max_token_size\":0}", JWTK_E_CONFIG, "max_token_size"},
        {"{\"cache\":{\"size\":1}}", JWTK_E_CONFIG, "cache.size"},
        {"{\"cache\":\"yes\"}", JWTK_E_CONFIG, "cache"},
        {"{\"provider\":\"myspace\"}", JWTK_E_CONFIG, "myspace"},
        {"{\"provider\":\"firebase\"}", JWTK_E_CONFIG, "project_id"},
        /* A preset without its audience would admit every application's ID tokens: refused, naming it. */
        {"{\"provider\":\"apple\"}", JWTK_E_CONFIG, "bundle ID"},
        {"{\"provider\":\"google\"}", JWTK_E_CONFIG, "OAuth client ID"},
        {"{\"provider\":\"google\",\"audiences\":[]}", JWTK_E_CONFIG, "\"audiences\""},
        {"{\"provider\":\"google\",\"audiences\":[\"\"]}", JWTK_E_CONFIG, "empty audience"},
        {"{\"provider\":\"facebook\",\"pull\":true}", JWTK_E_CONFIG, "app ID"},
        {"{\"provider\":\"line\"}", JWTK_E_CONFIG, "channel ID"},
        {"{\"provider\":\"microsoft\",\"tenant_id\":\"t\"}", JWTK_E_CONFIG, "client) ID"},
        {"{\"provider\":\"firebase\",\"project_id\":\"p\",\"audiences\":[]}", JWTK_E_CONFIG, "project ID"},
        {"{\"jwks_url\":\"https://x.example/jwks\"}", JWTK_E_CONFIG, "issuers"},
        {"{\"issuers\":[\"i\"],\"jwks_url\":\"http://x.example/jwks\"}", JWTK_E_CONFIG, "loopback"},
        {"{\"issuers\":[\"i\"],\"jwks_url\":\"ftp://127.0.0.1/jwks\"}", JWTK_E_CONFIG, "https"},
        {"{\"issuers\":[\"i\"],\"jwks_url\":7}", JWTK_E_CONFIG, "jwks_url"},
        {"{\"cooldown\":5}", JWTK_E_CONFIG, "jwks_url"},
        {"{\"issuers\":[\"i\"],\"jwks_url\":\"https://x.example/jwks\",\"cooldown\":-1}", JWTK_E_CONFIG, "cooldown"},
        {"{\"issuers\":[\"i\"],\"jwks_url\":\"https://x.example/jwks\",\"cooldown\":0}", JWTK_E_CONFIG, "cooldown"},
        {"{\"issuers\":[\"i\"],\"jwks_url\":\"https://x.example/jwks\",\"refresh_min\":0}", JWTK_E_CONFIG, "refresh_min"},
        {"{\"issuers\":[\"i\"],\"jwks_url\":\"https://x.example/jwks\",\"refresh_min\":600,\"refresh_max\":60}",
         JWTK_E_CONFIG, "refresh_max"},
        {"{\"issuers\":[\"i\"],\"jwks_url\":\"https://x.example/jwks\",\"max_staleness\":0}", JWTK_E_CONFIG,
         "max_staleness"},
        {"{\"issuers\":[\"i\"],\"jwks_url\":\"https://x.example/jwks\",\"cooldown\":5,\"max_staleness\":60,"
         "\"refresh_min\":60,\"refresh_max\":600}", JWTK_OK, ""},
        {"{\"issuers\":[\"i\"],\"jwks_url\":\"https://x.example/other\"}", JWTK_E_CONFIG, "another key source"},
        {"{\"leeway\":60,\"leeway\":0}", JWTK_E_CONFIG, "duplicate"},
        {"{\"nonce\":\"\xff\"}", JWTK_E_CONFIG, "JSON"},
        {"{\"provider\":\"apple\",\"audiences\":[\"com.example\"]}", JWTK_OK, ""},
        {"{\"provider\":\"firebase\",\"project_id\":\"p\"}", JWTK_OK, ""},
        /* Nothing ignored: a member of another provider, or pull: false beside a URL that would be pulled. */
        {"{\"project_id\":\"p\"}", JWTK_E_CONFIG, "project_id"},
        {"{\"provider\":\"apple\",\"audiences\":[\"a\"],\"tenant_id\":\"t\"}", JWTK_E_CONFIG, "tenant_id"},
        {"{\"issuers\":[\"p\"],\"jwks_url\":\"https://x.example/p\",\"pull\":false}", JWTK_E_CONFIG, "pull"},
        /* A preset's keys from a mirror (fetched in test_pull.c). */
        {"{\"provider\":\"apple\",\"audiences\":[\"a\"],\"jwks_url\":\"http://127.0.0.1:9/apple-keys\"}", JWTK_OK, ""},
        {"{\"cache\":true,\"batch_threads\":1,\"max_age\":600,\"require_exp\":false,\"reject_iat_in_future\":false,"
         "\"typ\":\"JWT\",\"nonce\":\"n\",\"required_claims\":[\"sub\"],\"algorithms\":[\"RS256\",\"HS256\"]}", JWTK_OK, ""},
    };
    size_t i;
    char many[4096];
    size_t o;
    jwtk_keystore_new(&ks);
    jwtk_ctx_new(&ctx);
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        int rc = jwtk_verifier_new_ex(rows[i].config, strlen(rows[i].config), ks, ctx, &v);
        CHECK_STATUS(rc, rows[i].status, rows[i].config);
        if (rc == JWTK_OK) {
            CHECK(v != NULL, "verifier made");
            jwtk_verifier_free(v);
            v = NULL;
        } else {
            CHECK(v == NULL && strstr(jwtk_ctx_errmsg(ctx), rows[i].mention) != NULL, "errmsg for %s: %s",
                  rows[i].config, jwtk_ctx_errmsg(ctx));
        }
    }
    CHECK_STATUS(jwtk_verifier_new(NULL, 2, ks, &v), JWTK_E_NULL, "config NULL");
    CHECK_STATUS(jwtk_verifier_new("{}", 0, ks, &v), JWTK_E_LENGTH, "config length 0");
    CHECK_STATUS(jwtk_verifier_new("{}", SIZE_MAX, ks, &v), JWTK_E_LENGTH, "config length SIZE_MAX");
    /* 65 required claims: refused here (the core would trap on it). */
    o = (size_t)snprintf(many, sizeof many, "{\"required_claims\":[");
    for (i = 0; i < 65; i++) o += (size_t)snprintf(many + o, sizeof many - o, "%s\"c%zu\"", i ? "," : "", i);
    snprintf(many + o, sizeof many - o, "]}");
    CHECK_STATUS(jwtk_verifier_new_ex(many, strlen(many), ks, ctx, &v), JWTK_E_CONFIG, "65 required claims");
    CHECK(strstr(jwtk_ctx_errmsg(ctx), "required_claims") != NULL, "errmsg: %s", jwtk_ctx_errmsg(ctx));
    {
        /* A JSON error in a config says where: line and column (a trailing comma on line 3). */
        const char *trailing = "{\"issuers\":[\"a\"],\n  \"leeway\":0,\n}";
        CHECK_STATUS(jwtk_verifier_new_ex(trailing, strlen(trailing), ks, ctx, &v), JWTK_E_CONFIG, "trailing comma");
        CHECK(strcmp(jwtk_ctx_errmsg(ctx), "config is not valid JSON: expected member name at line 3, column 1") == 0,
              "errmsg: %s", jwtk_ctx_errmsg(ctx));
    }
    jwtk_keystore_free(ks);
    jwtk_ctx_free(ctx);
}

/* "claims": each shape that is refused, with the message naming the requirement and member, and good ones. */
static void test_claim_requirements_config(void) {
    jwtk_keystore *ks = NULL;
    jwtk_ctx *ctx = NULL;
    jwtk_verifier *v = NULL;
    struct { const char *claims; int status; const char *mention; } rows[] = {
        {"[]", JWTK_OK, ""},
        {"[{\"pointer\":\"/scope\",\"contains_all\":[\"read\",\"write\"]},{\"pointer\":\"/tenant\",\"equals\":\"acme\"},"
         "{\"pointer\":\"/https:~1~1example.com~1roles\",\"contains_any\":[\"admin\"]},"
         "{\"pointer\":\"/email_verified\",\"equals\":true},{\"pointer\":\"/plan\",\"one_of\":[\"pro\",\"team\",1,2.5e3]}]",
         JWTK_OK, ""},
        {"{}", JWTK_E_CONFIG, "\"claims\": expected an array"},
        {"[\"/scope\"]", JWTK_E_CONFIG, "claims[0]: expected an object"},
        {"[{\"pointer\":\"/a\",\"equals\":\"x\"},{\"equals\":\"x\"}]", JWTK_E_CONFIG, "claims[1]: \"pointer\" is required"},
        {"[{\"pointer\":\"/a\"}]", JWTK_E_CONFIG, "claims[0]: give one of equals, one_of, contains_all, contains_any"},
        {"[{\"pointer\":\"/a\",\"equal\":\"x\"}]", JWTK_E_CONFIG, "unknown member \"claims[0].equal\""},
        {"[{\"pointer\":\"/a\",\"equals\":\"x\",\"one_of\":[\"y\"]}]", JWTK_E_CONFIG, "one condition per requirement"},
        {"[{\"pointer\":\"/a\",\"equals\":null}]", JWTK_E_CONFIG, "claims[0].equals: expected a string, number or boolean"},
        {"[{\"pointer\":\"/a\",\"equals\":[\"x\"]}]", JWTK_E_CONFIG, "claims[0].equals: expected a string"},
        {"[{\"pointer\":\"/a\",\"equals\":{}}]", JWTK_E_CONFIG, "claims[0].equals"},
        {"[{\"pointer\":\"/a\",\"one_of\":[]}]", JWTK_E_CONFIG, "claims[0].one_of: expected a non-empty array"},
        {"[{\"pointer\":\"/a\",\"one_of\":\"x\"}]", JWTK_E_CONFIG, "claims[0].one_of"},
        {"[{\"pointer\":\"/a\",\"contains_all\":[\"x\",null]}]", JWTK_E_CONFIG, "claims[0].contains_all"},
        {"[{\"pointer\":\"/a\",\"contains_any\":[[\"x\"]]}]", JWTK_E_CONFIG, "claims[0].contains_any"},
        {"[{\"pointer\":7,\"equals\":\"x\"}]", JWTK_E_CONFIG, "claims[0].pointer: expected a string"},
        {"[{\"pointer\":\"scope\",\"equals\":\"x\"}]", JWTK_E_CONFIG, "claims[0]: \"scope\" is not a JSON Pointer"},
        {"[{\"pointer\":\"/a~2\",\"equals\":\"x\"}]", JWTK_E_CONFIG, "\"~\" must be followed by 0 or 1"},
        {"[{\"pointer\":\"\",\"equals\":\"x\"}]", JWTK_E_CONFIG, "whole claims set"},
        {"[{\"pointer\":\"/a\",\"equals\":1e999999}]", JWTK_E_CONFIG, "out of range"},
        {"[{\"pointer\":\"/a\",\"equals\":\"x\",\"pointer\":\"/b\"}]", JWTK_E_CONFIG, "duplicate"},
    };
    size_t i;
    char config[1024];
    jwtk_keystore_new(&ks);
    jwtk_ctx_new(&ctx);
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        int rc;
        snprintf(config, sizeof config, "{\"claims\":%s}", rows[i].claims);
        rc = jwtk_verifier_new_ex(config, strlen(config), ks, ctx, &v);
        CHECK_STATUS(rc, rows[i].status, config);
        if (rc == JWTK_OK) {
            jwtk_verifier_free(v);
            v = NULL;
        } else {
            CHECK(v == NULL && strstr(jwtk_ctx_errmsg(ctx), rows[i].mention) != NULL, "errmsg for %s: %s", config,
                  jwtk_ctx_errmsg(ctx));
        }
    }
    jwtk_keystore_free(ks);
    jwtk_ctx_free(ctx);
}

/* Verdicts: met requirements verify, an unmet one is JWTK_CLAIM_REQUIREMENT_FAILED (403,
 * insufficient_scope) with a reason in errmsg, and only once every other check passed. */
static void test_claim_requirements_verdicts(void) {
    jwtk_keystore *ks = keystore_with(NULL, mint_hmac_jwks());
    jwtk_ctx *ctx = NULL;
    jwtk_verifier *v, *cached;
    const char *config =
        "{\"issuers\":[\"" ISS "\"],\"audiences\":[\"api\"],\"leeway\":0,\"claims\":["
        "{\"pointer\":\"/scope\",\"contains_all\":[\"read\",\"write\"]},{\"pointer\":\"/tenant\",\"equals\":\"acme\"},"
        "{\"pointer\":\"/https:~1~1example.com~1roles\",\"contains_any\":[\"admin\",\"owner\"]},"
        "{\"pointer\":\"/email_verified\",\"equals\":true},{\"pointer\":\"/org/tier\",\"one_of\":[2,3]}]}";
    char cached_config[1024];
#define REQ_BASE "\"iss\":\"" ISS "\",\"aud\":\"api\",\"exp\":1700003600"
#define REQ_GOOD "{" REQ_BASE ",\"scope\":\"openid write read\",\"tenant\":\"acme\",\"https://example.com/roles\":[\"owner\"]," \
                 "\"email_verified\":true,\"org\":{\"tier\":3.0}}"
    struct { const char *claims; int status; const char *why; } rows[] = {
        {REQ_GOOD, JWTK_OK, "every requirement met"},
        {"{" REQ_BASE ",\"scope\":[\"read\",\"write\"],\"tenant\":\"acme\",\"https://example.com/roles\":\"admin\","
         "\"email_verified\":true,\"org\":{\"tier\":2}}", JWTK_OK, "arrays and space-separated strings alike"},
        {"{" REQ_BASE ",\"scope\":\"read\",\"tenant\":\"acme\",\"https://example.com/roles\":[\"owner\"],"
         "\"email_verified\":true,\"org\":{\"tier\":3}}", JWTK_CLAIM_REQUIREMENT_FAILED, "scope lacks write"},
        {"{" REQ_BASE ",\"scope\":\"read write\",\"tenant\":\"evil\",\"https://example.com/roles\":[\"owner\"],"
         "\"email_verified\":true,\"org\":{\"tier\":3}}", JWTK_CLAIM_REQUIREMENT_FAILED, "other tenant"},
        {"{" REQ_BASE ",\"scope\":\"read write\",\"tenant\":\"acme\",\"https://example.com/roles\":[\"viewer\"],"
         "\"email_verified\":true,\"org\":{\"tier\":3}}", JWTK_CLAIM_REQUIREMENT_FAILED, "no accepted role"},
        {"{" REQ_BASE ",\"scope\":\"read write\",\"tenant\":\"acme\",\"https://example.com/roles\":[\"owner\"],"
         "\"email_verified\":\"true\",\"org\":{\"tier\":3}}", JWTK_CLAIM_REQUIREMENT_FAILED, "the string \"true\""},
        {"{" REQ_BASE ",\"scope\":\"read write\",\"tenant\":\"acme\",\"https://example.com/roles\":[\"owner\"],"
         "\"email_verified\":true,\"org\":{\"tier\":4}}", JWTK_CLAIM_REQUIREMENT_FAILED, "tier not in the set"},
        {"{" REQ_BASE ",\"scope\":\"read write\",\"tenant\":\"acme\",\"https://example.com/roles\":[\"owner\"],"
         "\"email_verified\":true}", JWTK_CLAIM_REQUIREMENT_FAILED, "nested claim absent"},
        {"{\"iss\":\"" ISS "\",\"aud\":\"api\",\"exp\":1600000000,\"tenant\":\"evil\"}", JWTK_EXPIRED,
         "expired first, never insufficient"},
        {"{\"iss\":\"" ISS "\",\"aud\":\"web\",\"exp\":1700003600}", JWTK_BAD_AUDIENCE, "audience before requirements"},
    };
    size_t i;
    minted t;
    jwtk_ctx_new(&ctx);
    v = verifier_with(ks, config);
    snprintf(cached_config, sizeof cached_config, "%.*s,\"cache\":true}", (int)strlen(config) - 1, config);
    cached = verifier_with(ks, cached_config);
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        expect(v, ctx, "HS256", HS_HEADER, rows[i].claims, rows[i].status, rows[i].why);
        expect(cached, ctx, "HS256", HS_HEADER, rows[i].claims, rows[i].status, rows[i].why);
        expect(cached, ctx, "HS256", HS_HEADER, rows[i].claims, rows[i].status, rows[i].why);
    }
    t = mint_token("HS256", HS_HEADER, "{" REQ_BASE ",\"tenant\":\"acme\"}");
    CHECK_STATUS(jwtk_verify(v, ctx, t.ptr, t.len, NOW, NULL), JWTK_CLAIM_REQUIREMENT_FAILED, "scope absent");
    CHECK(strcmp(jwtk_ctx_errmsg(ctx), "claim requirement /scope contains_all: a claim a requirement names is absent")
          == 0, "errmsg names the requirement: %s", jwtk_ctx_errmsg(ctx));
    mint_free(t);
    /* The failed requirement is named by pointer and operator, never with the claim's value; the same from
     * the cache (second call). */
    t = mint_token("HS256", HS_HEADER, "{" REQ_BASE ",\"scope\":\"read write\",\"tenant\":\"evil-corp\"}");
    for (i = 0; i < 3; i++) {
        CHECK_STATUS(jwtk_verify(i == 0 ? v : cached, ctx, t.ptr, t.len, NOW, NULL), JWTK_CLAIM_REQUIREMENT_FAILED,
                     "other tenant");
        CHECK(strcmp(jwtk_ctx_errmsg(ctx), "claim requirement /tenant equals: a claim does not equal its required value")
              == 0 && strstr(jwtk_ctx_errmsg(ctx), "evil") == NULL, "errmsg: %s", jwtk_ctx_errmsg(ctx));
    }
    CHECK(jwtk_status_http(JWTK_CLAIM_REQUIREMENT_FAILED) == 403, "403");
    CHECK(strcmp(jwtk_status_bearer_error(JWTK_CLAIM_REQUIREMENT_FAILED), "insufficient_scope") == 0, "bearer");
    mint_free(t);
    {
        /* The batch path checks requirements too. */
        minted good = mint_token("HS256", HS_HEADER, REQ_GOOD);
        minted bad = mint_token("HS256", HS_HEADER, "{" REQ_BASE ",\"tenant\":\"acme\"}");
        const char *tokens[2] = {good.ptr, bad.ptr};
        size_t lens[2] = {good.len, bad.len};
        int statuses[2] = {-100, -100};
        CHECK_STATUS(jwtk_verify_batch(v, tokens, lens, 2, NOW, statuses), JWTK_OK, "batch");
        CHECK(statuses[0] == JWTK_OK && statuses[1] == JWTK_CLAIM_REQUIREMENT_FAILED, "batch verdicts %d %d",
              statuses[0], statuses[1]);
        mint_free(good);
        mint_free(bad);
    }
#undef REQ_BASE
#undef REQ_GOOD
    jwtk_verifier_free(v);
    jwtk_verifier_free(cached);
    jwtk_keystore_free(ks);
    jwtk_ctx_free(ctx);
}

/* jwtk_check_claims: a claims-only verifier's requirements against the ctx's last verified token (another
 * verifier's), as a host's authorization step after authentication uses it; the claim values stay valid. */
static void test_check_claims(void) {
    jwtk_keystore *ks = keystore_with(NULL, mint_hmac_jwks());
    jwtk_keystore *empty = NULL;
    jwtk_ctx *ctx = NULL;
    jwtk_verifier *v, *scope_read, *scope_write, *tier, *none;
    jwtk_str value = {NULL, 0};
    int type = 0;
    minted t;
    jwtk_keystore_new(&empty);
    jwtk_ctx_new(&ctx);
    v = verifier_with(ks, BASE_CONFIG);
    scope_read = verifier_with(empty, "{\"claims\":[{\"pointer\":\"/scope\",\"contains_all\":[\"read\"]}]}");
    scope_write = verifier_with(empty, "{\"claims\":[{\"pointer\":\"/scope\",\"contains_all\":[\"write\"]}]}");
    tier = verifier_with(empty, "{\"claims\":[{\"pointer\":\"/org/tier\",\"one_of\":[2,3]}]}");
    none = verifier_with(empty, "{}");
    CHECK_STATUS(jwtk_check_claims(scope_read, ctx), JWTK_E_NO_TOKEN, "no verification yet");
    t = mint_token("HS256", HS_HEADER, "{\"iss\":\"" ISS "\",\"aud\":\"api\",\"exp\":1700003600,"
                   "\"scope\":\"openid read\",\"org\":{\"tier\":3.0},\"sub\":\"u1\"}");
    CHECK_STATUS(jwtk_verify(v, ctx, t.ptr, t.len, NOW, NULL), JWTK_OK, "verify");
    CHECK_STATUS(jwtk_claim_at(ctx, "/sub", 4, 0, &value, &type), JWTK_OK, "sub");
    CHECK_STATUS(jwtk_check_claims(scope_read, ctx), JWTK_OK, "scope holds read");
    CHECK_STATUS(jwtk_check_claims(tier, ctx), JWTK_OK, "3.0 is one of 2, 3");
    CHECK_STATUS(jwtk_check_claims(none, ctx), JWTK_OK, "no requirement");
    CHECK_STATUS(jwtk_check_claims(scope_write, ctx), JWTK_CLAIM_REQUIREMENT_FAILED, "no write");
    CHECK(strcmp(jwtk_ctx_errmsg(ctx), "claim requirement /scope contains_all: a claim lacks a value it must contain")
          == 0,
          "errmsg names the requirement: %s", jwtk_ctx_errmsg(ctx));
    CHECK(value.len == 2 && memcmp(value.ptr, "u1", 2) == 0, "the claim value stays valid after the checks");
    CHECK_STATUS(jwtk_check_claims(NULL, ctx), JWTK_E_NULL, "NULL verifier");
    CHECK_STATUS(jwtk_check_claims(scope_read, NULL), JWTK_E_NULL, "NULL ctx");
    CHECK_STATUS(jwtk_check_claims((jwtk_verifier *) ctx, ctx), JWTK_E_HANDLE, "a ctx as the verifier");
    CHECK_STATUS(jwtk_verify(v, ctx, "x.y.z", 5, NOW, NULL), JWTK_MALFORMED, "a failed verification");
    CHECK_STATUS(jwtk_check_claims(scope_read, ctx), JWTK_E_NO_TOKEN, "after a failed verification");
    mint_free(t);
    jwtk_verifier_free(v);
    jwtk_verifier_free(scope_read);
    jwtk_verifier_free(scope_write);
    jwtk_verifier_free(tier);
    jwtk_verifier_free(none);
    jwtk_keystore_free(ks);
    jwtk_keystore_free(empty);
    jwtk_ctx_free(ctx);
}

static void test_verify_and_claims(void) {
    jwtk_keystore *ks = keystore_with(NULL, mint_hmac_jwks());
    jwtk_verifier *v = verifier_with(ks, BASE_CONFIG);
    jwtk_ctx *ctx = NULL;
    jwtk_claims out;
    jwtk_str value;
    int type;
    const char *claims = "{\"iss\":\"" ISS "\",\"sub\":\"caf\\u00e9\",\"aud\":[\"web\",\"api\"],\"exp\":1700003600.9,"
                         "\"nbf\":1699999000,\"iat\":1699999990,\"jti\":\"j-1\",\"n\":42,\"t\":true,\"z\":null,"
                         "\"address\":{\"country\":\"NZ\",\"geo\":{\"lat\":-36.8}},\"https://x.example/roles\":[\"admin\"],"
                         "\"a.b\":{\"c\":\"dotted\"}}";
    minted t = mint_token("HS256", HS_HEADER, claims);
    jwtk_ctx_new(&ctx);
    memset(&out, 0, sizeof out);
    out.struct_size = sizeof out;
    CHECK_STATUS(jwtk_claim(ctx, "sub", 3, &value, &type), JWTK_E_NO_TOKEN, "claim before any verify");
    CHECK_STATUS(jwtk_verify(v, ctx, t.ptr, t.len, NOW, &out), JWTK_OK, "valid HS256");
    CHECK(str_is(out.alg, "HS256") && str_is(out.kid, "h1") && str_is(out.typ, "JWT"), "header fields");
    CHECK(str_is(out.iss, ISS) && str_is(out.sub, "caf\xc3\xa9") && str_is(out.jti, "j-1"), "string claims (escape decoded)");
    CHECK(str_is(out.aud, "[\"web\",\"api\"]") && (out.flags & JWTK_CLAIMS_AUD_ARRAY), "aud array as JSON");
    CHECK(out.exp == 1700003600 && out.nbf == 1699999000 && out.iat == 1699999990, "times");
    CHECK((out.flags & (JWTK_CLAIMS_HAS_EXP | JWTK_CLAIMS_HAS_NBF | JWTK_CLAIMS_HAS_IAT)) == 7u, "time flags");
    CHECK(out.payload.ptr > t.ptr && out.payload.ptr + out.payload.len < t.ptr + t.len, "payload points into the token");
    CHECK(out.claims_json.len == strlen(claims) && memcmp(out.claims_json.ptr, claims, strlen(claims)) == 0, "claims JSON");
    CHECK(strcmp(jwtk_ctx_errmsg(ctx), "") == 0, "no message after success: %s", jwtk_ctx_errmsg(ctx));
    {
        struct { const char *name; int type; const char *value; } rows[] = {
            {"sub", JWTK_JSON_STRING, "caf\xc3\xa9"}, {"n", JWTK_JSON_NUMBER, "42"}, {"t", JWTK_JSON_BOOL, "true"},
            {"z", JWTK_JSON_NULL, "null"}, {"aud", JWTK_JSON_ARRAY, "[\"web\",\"api\"]"},
            {"address.country", JWTK_JSON_STRING, "NZ"}, {"address.geo.lat", JWTK_JSON_NUMBER, "-36.8"},
            {"address", JWTK_JSON_OBJECT, "{\"country\":\"NZ\",\"geo\":{\"lat\":-36.8}}"},
            {"https://x.example/roles", JWTK_JSON_ARRAY, "[\"admin\"]"}, {"a.b.c", JWTK_JSON_STRING, "dotted"},
            {"exp", JWTK_JSON_NUMBER, "1700003600.9"},
        };
        size_t i;
        jwtk_str keep;
        for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
            CHECK_STATUS(jwtk_claim(ctx, rows[i].name, strlen(rows[i].name), &value, &type), JWTK_OK, rows[i].name);
            CHECK(type == rows[i].type && str_is(value, rows[i].value), "claim %s: type %d value %.*s", rows[i].name,
                  type, (int)value.len, value.ptr ? value.ptr : "");
        }
        jwtk_claim(ctx, "sub", 3, &keep, &type);
        CHECK_STATUS(jwtk_claim(ctx, "nope", 4, &value, &type), JWTK_OK, "absent claim");
        CHECK(type == JWTK_JSON_NONE && value.ptr == NULL && value.len == 0, "absent: NONE");
        CHECK_STATUS(jwtk_claim(ctx, "address.nope", 12, &value, &type), JWTK_OK, "absent nested");
        CHECK(type == JWTK_JSON_NONE, "absent nested: NONE");
        CHECK(str_is(keep, "caf\xc3\xa9"), "earlier claim values stay valid");
        CHECK_STATUS(jwtk_claim(ctx, "\xc0\xaf", 2, &value, &type), JWTK_E_UTF8, "claim name not UTF-8");
        CHECK_STATUS(jwtk_claim(ctx, "sub", 0, &value, &type), JWTK_E_LENGTH, "claim name length 0");
        CHECK_STATUS(jwtk_claim(ctx, NULL, 3, &value, &type), JWTK_E_NULL, "claim name NULL");
        CHECK_STATUS(jwtk_claim(ctx, "sub", SIZE_MAX, &value, &type), JWTK_E_LENGTH, "claim name SIZE_MAX");
    }
    {
        /* NumericDate fractions (RFC 7519 section 2) against the whole-second now, toward refusal (leeway 0
         * here): exp counts from its floor, nbf from its ceiling. The struct has the date rounded down exactly
         * from its digits (a double rounds ...1.99999999999999999 up); jwtk_claim has it as the token wrote it. */
        const char *frac = "{\"iss\":\"" ISS "\",\"aud\":\"api\",\"exp\":1700000001.99999999999999999}";
        minted f = mint_token("HS256", HS_HEADER, frac);
        jwtk_claims o;
        expect(v, ctx, "HS256", HS_HEADER, "{\"iss\":\"" ISS "\",\"aud\":\"api\",\"exp\":1700000000.5}", JWTK_EXPIRED,
               "exp 1700000000.5 at now 1700000000");
        expect(v, ctx, "HS256", HS_HEADER,
               "{\"iss\":\"" ISS "\",\"aud\":\"api\",\"exp\":1700003600,\"nbf\":1700000000.5}", JWTK_NOT_YET_VALID,
               "nbf 1700000000.5 at now 1700000000");
        memset(&o, 0, sizeof o);
        o.struct_size = sizeof o;
        CHECK_STATUS(jwtk_verify(v, ctx, f.ptr, f.len, NOW, &o), JWTK_OK, "exp 1700000001.99999999999999999 at now");
        CHECK(o.exp == 1700000001, "exp rounded down exactly: %lld", (long long)o.exp);
        CHECK_STATUS(jwtk_claim(ctx, "exp", 3, &value, &type), JWTK_OK, "exp text");
        CHECK(type == JWTK_JSON_NUMBER && str_is(value, "1700000001.99999999999999999"), "exp as written: %.*s",
              (int)value.len, value.ptr ? value.ptr : "");
        mint_free(f);
    }
    {
        /* kid and typ found behind nested header members, and decoded. */
        const char *header = "{\"alg\":\"HS256\",\"x\":{\"a\":[1,{\"b\":\"}],\\\"\"}],\"c\":null},\"n\":-1.5e3,"
                             "\"kid\":\"h\\u0031\",\"t\":true,\"typ\":\"J\\u0057T\"}";
        minted e = mint_token("HS256", header, GOOD_CLAIMS);
        jwtk_claims o;
        memset(&o, 0, sizeof o);
        o.struct_size = sizeof o;
        CHECK_STATUS(jwtk_verify(v, ctx, e.ptr, e.len, NOW, &o), JWTK_OK, "escaped kid, nested header members");
        CHECK(str_is(o.kid, "h1") && str_is(o.typ, "JWT"), "kid %.*s typ %.*s", (int)o.kid.len, o.kid.ptr ? o.kid.ptr : "",
              (int)o.typ.len, o.typ.ptr ? o.typ.ptr : "");
        mint_free(e);
    }
    /* Status only: out NULL. */
    CHECK_STATUS(jwtk_verify(v, ctx, t.ptr, t.len, NOW, NULL), JWTK_OK, "out NULL");
    /* A failure clears out and the claims. */
    {
        minted bad = tampered(t);
        CHECK_STATUS(jwtk_verify(v, ctx, bad.ptr, bad.len, NOW, &out), JWTK_BAD_SIGNATURE, "tampered signature");
        mint_free(bad);
    }
    CHECK(out.alg.ptr == NULL && out.iss.ptr == NULL && out.struct_size == sizeof out, "out cleared on failure");
    CHECK(strlen(jwtk_ctx_errmsg(ctx)) > 0, "message after failure");
    CHECK_STATUS(jwtk_claim(ctx, "sub", 3, &value, &type), JWTK_E_NO_TOKEN, "claim after a failed verify");
    /* now 0 is the system clock: this token expired in 2023. */
    CHECK_STATUS(jwtk_verify(v, ctx, t.ptr, t.len, 0, &out), JWTK_EXPIRED, "now 0 uses the clock");
    mint_free(t);
    jwtk_verifier_free(v);
    jwtk_keystore_free(ks);
    jwtk_ctx_free(ctx);
}

/* One jwtk_claim_at lookup, checked: status JWTK_OK, the type, and the value (NULL: absent). */
static void expect_at(jwtk_ctx *ctx, const char *pointer, unsigned int flags, int want_type, const char *want) {
    jwtk_str value;
    int type = -1;
    CHECK_STATUS(jwtk_claim_at(ctx, pointer, strlen(pointer), flags, &value, &type), JWTK_OK, pointer);
    if (want == NULL) {
        CHECK(type == JWTK_JSON_NONE && value.ptr == NULL && value.len == 0, "%s (flags %u): want absent, got type %d",
              pointer, flags, type);
    } else {
        CHECK(type == want_type && str_is(value, want), "%s (flags %u): type %d value %.*s", pointer, flags, type,
              (int)value.len, value.ptr ? value.ptr : "");
    }
}

/* jwtk_claim_at: RFC 6901 pointers into the claims and the header. */
static void test_claim_at(void) {
    jwtk_keystore *ks = keystore_with(NULL, mint_hmac_jwks());
    jwtk_verifier *v = verifier_with(ks, BASE_CONFIG);
    jwtk_ctx *ctx = NULL;
    jwtk_str value, keep[4];
    int type;
    const char *header = "{\"alg\":\"HS256\",\"kid\":\"h1\",\"typ\":\"JWT\",\"x-tenant\":\"t\\u00e9\",\"x5\":[\"a\",2]}";
    const char *claims =
        "{\"iss\":\"" ISS "\",\"sub\":\"user-1\",\"aud\":\"api\",\"exp\":1700003600,"
        "\"email\":\"a@example.com\",\"address\":{\"country\":\"NZ\",\"geo\":{\"lat\":-36.8}},"
        "\"https://example.com/roles\":[\"admin\",\"ops\"],\"a~b\":1,\"a.b\":\"dot\",\"\":\"empty name\","
        "\"roles\":[\"r\\u00f6le\",\"a,b\",\"q\\\"\",\"\"],\"mixed\":[1,-2.5e3,true,false,null,\"s\"],"
        "\"nested\":[[1],{\"k\":[\"v\"]}],\"objs\":[{\"id\":1}],\"none\":[],\"m\":{\"0\":\"zero\",\"01\":\"lead\"},"
        "\"deep\":{\"list\":[{\"name\":\"first\"},{\"name\":\"sec\\/ond\"}]}}";
    minted t = mint_token("HS256", header, claims);
    jwtk_ctx_new(&ctx);
    CHECK_STATUS(jwtk_claim_at(ctx, "/sub", 4, 0, &value, &type), JWTK_E_NO_TOKEN, "claim_at before any verify");
    CHECK_STATUS(jwtk_verify(v, ctx, t.ptr, t.len, NOW, NULL), JWTK_OK, "claim_at token");

    /* Top level, nested, names holding "/", "~", "." or nothing. */
    expect_at(ctx, "/email", 0, JWTK_JSON_STRING, "a@example.com");
    expect_at(ctx, "/exp", 0, JWTK_JSON_NUMBER, "1700003600");
    expect_at(ctx, "/address/country", 0, JWTK_JSON_STRING, "NZ");
    expect_at(ctx, "/address/geo/lat", 0, JWTK_JSON_NUMBER, "-36.8");
    expect_at(ctx, "/address", 0, JWTK_JSON_OBJECT, "{\"country\":\"NZ\",\"geo\":{\"lat\":-36.8}}");
    expect_at(ctx, "/https:~1~1example.com~1roles", 0, JWTK_JSON_ARRAY, "[\"admin\",\"ops\"]");
    expect_at(ctx, "/https:~1~1example.com~1roles/1", 0, JWTK_JSON_STRING, "ops");
    expect_at(ctx, "/https://example.com/roles", 0, 0, NULL);
    expect_at(ctx, "/a~0b", 0, JWTK_JSON_NUMBER, "1");
    expect_at(ctx, "/a~1b", 0, 0, NULL);
    expect_at(ctx, "/a.b", 0, JWTK_JSON_STRING, "dot");
    expect_at(ctx, "/address.country", 0, 0, NULL);   /* no dotted paths here: "." is an ordinary byte */
    expect_at(ctx, "/", 0, JWTK_JSON_STRING, "empty name");
    expect_at(ctx, "", 0, JWTK_JSON_OBJECT, claims);
    CHECK_STATUS(jwtk_claim_at(ctx, NULL, 0, 0, &value, &type), JWTK_OK, "NULL, 0 is the empty pointer");
    CHECK(type == JWTK_JSON_OBJECT && str_is(value, claims), "NULL, 0: the whole claims set");
    expect_at(ctx, "/deep/list/1/name", 0, JWTK_JSON_STRING, "sec/ond");
    expect_at(ctx, "/nope", 0, 0, NULL);
    expect_at(ctx, "/address/nope", 0, 0, NULL);
    expect_at(ctx, "/email/x", 0, 0, NULL);   /* a step into a string */
    expect_at(ctx, "/address/country/", 0, 0, NULL);

    /* Arrays by index: decimal without leading zeros; "-" and out-of-range never match. */
    expect_at(ctx, "/roles/0", 0, JWTK_JSON_STRING, "r\xc3\xb6le");
    expect_at(ctx, "/roles/3", 0, JWTK_JSON_STRING, "");
    expect_at(ctx, "/roles/4", 0, 0, NULL);
    expect_at(ctx, "/roles/01", 0, 0, NULL);
    expect_at(ctx, "/roles/00", 0, 0, NULL);
    expect_at(ctx, "/roles/-", 0, 0, NULL);
    expect_at(ctx, "/roles/+1", 0, 0, NULL);
    expect_at(ctx, "/roles/1e0", 0, 0, NULL);
    expect_at(ctx, "/roles/", 0, 0, NULL);
    expect_at(ctx, "/roles/99999999999999999999999", 0, 0, NULL);
    expect_at(ctx, "/mixed/4", 0, JWTK_JSON_NULL, "null");
    expect_at(ctx, "/mixed/2", 0, JWTK_JSON_BOOL, "true");
    expect_at(ctx, "/nested/0/0", 0, JWTK_JSON_NUMBER, "1");
    expect_at(ctx, "/nested/1/k/0", 0, JWTK_JSON_STRING, "v");
    expect_at(ctx, "/m/0", 0, JWTK_JSON_STRING, "zero");   /* on an object, "0" and "01" are member names */
    expect_at(ctx, "/m/01", 0, JWTK_JSON_STRING, "lead");

    /* JWTK_AT_JOIN: arrays of scalars joined by ",", strings decoded; other arrays stay JSON. */
    expect_at(ctx, "/roles", JWTK_AT_JOIN, JWTK_JSON_ARRAY, "r\xc3\xb6le,a,b,q\",");
    expect_at(ctx, "/roles", 0, JWTK_JSON_ARRAY, "[\"r\\u00f6le\",\"a,b\",\"q\\\"\",\"\"]");
    expect_at(ctx, "/mixed", JWTK_AT_JOIN, JWTK_JSON_ARRAY, "1,-2.5e3,true,false,null,s");
    expect_at(ctx, "/https:~1~1example.com~1roles", JWTK_AT_JOIN, JWTK_JSON_ARRAY, "admin,ops");
    expect_at(ctx, "/none", JWTK_AT_JOIN, JWTK_JSON_ARRAY, "");
    expect_at(ctx, "/nested", JWTK_AT_JOIN, JWTK_JSON_ARRAY, "[[1],{\"k\":[\"v\"]}]");
    expect_at(ctx, "/objs", JWTK_AT_JOIN, JWTK_JSON_ARRAY, "[{\"id\":1}]");
    expect_at(ctx, "/nested/0", JWTK_AT_JOIN, JWTK_JSON_ARRAY, "1");
    expect_at(ctx, "/email", JWTK_AT_JOIN, JWTK_JSON_STRING, "a@example.com");   /* no effect on non-arrays */
    expect_at(ctx, "/address", JWTK_AT_JOIN, JWTK_JSON_OBJECT, "{\"country\":\"NZ\",\"geo\":{\"lat\":-36.8}}");

    /* Header lookups: kid, typ, a custom parameter (decoded), an array in the header; never crit. */
    expect_at(ctx, "/kid", JWTK_AT_HEADER, JWTK_JSON_STRING, "h1");
    expect_at(ctx, "/typ", JWTK_AT_HEADER, JWTK_JSON_STRING, "JWT");
    expect_at(ctx, "/alg", JWTK_AT_HEADER, JWTK_JSON_STRING, "HS256");
    expect_at(ctx, "/x-tenant", JWTK_AT_HEADER, JWTK_JSON_STRING, "t\xc3\xa9");
    expect_at(ctx, "/x5", JWTK_AT_HEADER | JWTK_AT_JOIN, JWTK_JSON_ARRAY, "a,2");
    expect_at(ctx, "/x5/1", JWTK_AT_HEADER, JWTK_JSON_NUMBER, "2");
    expect_at(ctx, "/crit", JWTK_AT_HEADER, 0, NULL);
    expect_at(ctx, "/email", JWTK_AT_HEADER, 0, NULL);
    expect_at(ctx, "/kid", 0, 0, NULL);
    expect_at(ctx, "", JWTK_AT_HEADER, JWTK_JSON_OBJECT, header);

    /* Several results valid together: a joined array, its own decoded elements, jwtk_claim, the header. */
    jwtk_claim_at(ctx, "/roles", 6, JWTK_AT_JOIN, &keep[0], &type);
    jwtk_claim_at(ctx, "/roles/0", 8, 0, &keep[1], &type);
    jwtk_claim_at(ctx, "/roles/2", 8, 0, &keep[2], &type);
    jwtk_claim_at(ctx, "/x-tenant", 9, JWTK_AT_HEADER, &keep[3], &type);
    jwtk_claim(ctx, "roles", 5, &value, &type);
    expect_at(ctx, "/mixed", JWTK_AT_JOIN, JWTK_JSON_ARRAY, "1,-2.5e3,true,false,null,s");
    expect_at(ctx, "/roles/1", 0, JWTK_JSON_STRING, "a,b");
    CHECK(str_is(keep[0], "r\xc3\xb6le,a,b,q\",") && str_is(keep[1], "r\xc3\xb6le") && str_is(keep[2], "q\"") &&
              str_is(keep[3], "t\xc3\xa9") && str_is(value, "[\"r\\u00f6le\",\"a,b\",\"q\\\"\",\"\"]"),
          "results stay valid together: %.*s | %.*s | %.*s", (int)keep[0].len, keep[0].ptr, (int)keep[1].len,
          keep[1].ptr, (int)keep[2].len, keep[2].ptr);

    /* Bad pointers: status, outputs cleared; jwtk_ctx_errmsg names the problem. */
    {
        struct { const char *p; size_t len; unsigned int flags; int want; } bad[] = {
            {"email", 5, 0, JWTK_E_SYNTAX}, {"~1a", 3, 0, JWTK_E_SYNTAX}, {"/a~2b", 5, 0, JWTK_E_SYNTAX},
            {"/a~", 3, 0, JWTK_E_SYNTAX}, {"/~/x", 4, 0, JWTK_E_SYNTAX}, {" /a", 3, 0, JWTK_E_SYNTAX},
            {"/\xc0\xaf", 3, 0, JWTK_E_UTF8}, {"/\xff", 2, 0, JWTK_E_UTF8}, {"/a\xed\xa0\x80", 5, 0, JWTK_E_UTF8},
            {"/sub", SIZE_MAX, 0, JWTK_E_LENGTH}, {NULL, 4, 0, JWTK_E_NULL},
            {"/sub", 4, 0x4u, JWTK_E_RANGE}, {"/sub", 4, ~0u, JWTK_E_RANGE},
        };
        size_t i;
        char longer[1026];
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            value.ptr = "x";
            value.len = 1;
            type = 9;
            CHECK_STATUS(jwtk_claim_at(ctx, bad[i].p, bad[i].len, bad[i].flags, &value, &type), bad[i].want,
                         bad[i].p ? bad[i].p : "NULL pointer");
            CHECK(value.ptr == NULL && value.len == 0 && type == JWTK_JSON_NONE, "outputs cleared on misuse %zu", i);
        }
        CHECK_STATUS(jwtk_claim_at(ctx, "/a~2", 4, 0, &value, &type), JWTK_E_SYNTAX, "bad escape");
        CHECK(strstr(jwtk_ctx_errmsg(ctx), "~") != NULL, "message names the escape: %s", jwtk_ctx_errmsg(ctx));
        memset(longer, 'a', sizeof longer);
        longer[0] = '/';
        CHECK_STATUS(jwtk_claim_at(ctx, longer, 1024, 0, &value, &type), JWTK_OK, "1024-byte pointer");
        CHECK_STATUS(jwtk_claim_at(ctx, longer, 1025, 0, &value, &type), JWTK_E_LENGTH, "1025-byte pointer");
        CHECK_STATUS(jwtk_claim_at(NULL, "/sub", 4, 0, &value, &type), JWTK_E_NULL, "claim_at ctx NULL");
        CHECK_STATUS(jwtk_claim_at((jwtk_ctx *)v, "/sub", 4, 0, &value, &type), JWTK_E_HANDLE, "claim_at ctx verifier");
        CHECK_STATUS(jwtk_claim_at(ctx, "/sub", 4, 0, NULL, &type), JWTK_E_NULL, "claim_at value NULL");
        CHECK_STATUS(jwtk_claim_at(ctx, "/sub", 4, 0, &value, NULL), JWTK_E_NULL, "claim_at type NULL");
        /* Misuse changed nothing: the earlier results and the token are still there. */
        CHECK(str_is(keep[0], "r\xc3\xb6le,a,b,q\","), "joined value survives misuse");
        expect_at(ctx, "/sub", 0, JWTK_JSON_STRING, "user-1");
    }

    /* A failed verification forgets the token; a later success answers for the new one. */
    {
        minted bad = tampered(t), other = mint_token("HS256", HS_HEADER, GOOD_CLAIMS);
        CHECK_STATUS(jwtk_verify(v, ctx, bad.ptr, bad.len, NOW, NULL), JWTK_BAD_SIGNATURE, "tampered");
        CHECK_STATUS(jwtk_claim_at(ctx, "/sub", 4, 0, &value, &type), JWTK_E_NO_TOKEN, "claim_at after a failure");
        CHECK_STATUS(jwtk_claim_at(ctx, "", 0, JWTK_AT_HEADER, &value, &type), JWTK_E_NO_TOKEN, "header after failure");
        CHECK_STATUS(jwtk_verify(v, ctx, other.ptr, other.len, NOW, NULL), JWTK_OK, "another token");
        expect_at(ctx, "/sub", 0, JWTK_JSON_STRING, "user-1");
        expect_at(ctx, "/roles", JWTK_AT_JOIN, 0, NULL);
        expect_at(ctx, "/kid", JWTK_AT_HEADER, JWTK_JSON_STRING, "h1");
        mint_free(bad);
        mint_free(other);
    }
    mint_free(t);
    jwtk_verifier_free(v);
    jwtk_keystore_free(ks);
    jwtk_ctx_free(ctx);
}

/* jwtk_claims.payload is exactly the text between the token's dots, whatever the base64url remainders of the
 * header and claims lengths (the library derives the span from the decoded lengths). */
static void test_payload_segment(void) {
    jwtk_keystore *ks = keystore_with(NULL, mint_hmac_jwks());
    jwtk_verifier *v = verifier_with(ks, BASE_CONFIG);
    jwtk_ctx *ctx = NULL;
    const char *headers[] = {"{\"alg\":\"HS256\",\"kid\":\"h1\"}", "{\"alg\":\"HS256\",\"kid\":\"h1\" }",
                             "{\"alg\":\"HS256\",\"kid\":\"h1\"  }"};
    const char *claims[] = {"{\"iss\":\"" ISS "\",\"aud\":\"api\",\"exp\":1700003600}",
                            "{\"iss\":\"" ISS "\",\"aud\":\"api\",\"exp\":1700003600 }",
                            "{\"iss\":\"" ISS "\",\"aud\":\"api\",\"exp\":1700003600  }"};
    int h, c;
    jwtk_ctx_new(&ctx);
    for (h = 0; h < 3; h++)
        for (c = 0; c < 3; c++) {
            minted t = mint_token("HS256", headers[h], claims[c]);
            jwtk_claims out;
            const char *dot1 = memchr(t.ptr, '.', t.len);
            const char *dot2 = dot1 ? memchr(dot1 + 1, '.', t.len - (size_t)(dot1 + 1 - t.ptr)) : NULL;
            memset(&out, 0, sizeof out);
            out.struct_size = sizeof out;
            CHECK_STATUS(jwtk_verify(v, ctx, t.ptr, t.len, NOW, &out), JWTK_OK, "token for the payload check");
            CHECK(dot2 && out.payload.ptr == dot1 + 1 && out.payload.len == (size_t)(dot2 - dot1 - 1),
                  "payload segment, header length %% 3 = %d, claims length %% 3 = %d", (int)(strlen(headers[h]) % 3),
                  (int)(strlen(claims[c]) % 3));
            mint_free(t);
        }
    jwtk_ctx_free(ctx);
    jwtk_verifier_free(v);
    jwtk_keystore_free(ks);
}

static void test_token_statuses(void) {
    jwtk_keystore *ks = keystore_with(NULL, mint_hmac_jwks());
    jwtk_keystore *rs = keystore_with(NULL, mint_rsa_jwks());
    jwtk_verifier *v = verifier_with(ks, BASE_CONFIG);
    jwtk_verifier *rsv = verifier_with(rs, BASE_CONFIG);
    jwtk_verifier *strict = verifier_with(ks, "{\"issuers\":[\"" ISS "\"],\"audiences\":[\"api\"],\"leeway\":0,"
                                              "\"typ\":\"at+jwt\",\"nonce\":\"n-1\",\"required_claims\":[\"sub\"],\"max_token_size\":400}");
    jwtk_verifier *rs_only = verifier_with(ks, "{\"algorithms\":[\"RS256\"]}");
    jwtk_ctx *ctx = NULL;
    char big[500];
    jwtk_ctx_new(&ctx);
    expect(rsv, ctx, "RS256", RS_HEADER, GOOD_CLAIMS, JWTK_OK, "valid RS256");
    expect(v, ctx, "HS256", HS_HEADER, GOOD_CLAIMS, JWTK_OK, "valid HS256");
    CHECK_STATUS(jwtk_verify(v, ctx, "abc", 3, NOW, NULL), JWTK_MALFORMED, "one segment");
    CHECK_STATUS(jwtk_verify(v, ctx, "", 0, NOW, NULL), JWTK_MALFORMED, "empty token");
    CHECK_STATUS(jwtk_verify(v, ctx, "a.\xff\xfe.c", 7, NOW, NULL), JWTK_MALFORMED, "invalid UTF-8 in a token");
    CHECK_STATUS(jwtk_verify(v, ctx, "a.b.c", SIZE_MAX, NOW, NULL), JWTK_TOO_LARGE, "length SIZE_MAX");
    CHECK_STATUS(jwtk_verify(v, ctx, "a.b.c", (size_t)1 << 62, NOW, NULL), JWTK_TOO_LARGE, "length 2^62");
    memset(big, 'a', sizeof big);
    CHECK_STATUS(jwtk_verify(strict, ctx, big, sizeof big, NOW, NULL), JWTK_TOO_LARGE, "over max_token_size");
    expect(v, ctx, "none", "{\"alg\":\"none\"}", GOOD_CLAIMS, JWTK_UNSUPPORTED_ALG, "alg none");
    expect(rs_only, ctx, "HS256", HS_HEADER, GOOD_CLAIMS, JWTK_ALG_NOT_ALLOWED, "HS256 not allowed");
    expect(v, ctx, "HS256", "{\"alg\":\"HS256\",\"kid\":\"zz\"}", GOOD_CLAIMS, JWTK_UNKNOWN_KID, "unknown kid");
    expect(v, ctx, "HS256", "{\"alg\":\"HS384\",\"kid\":\"h1\"}", GOOD_CLAIMS, JWTK_KEY_ALG_MISMATCH, "HS384 with an HS256 key");
    expect(v, ctx, "RS256", HS_HEADER, GOOD_CLAIMS, JWTK_BAD_SIGNATURE, "HS256 header, RSA signature");
    expect(v, ctx, "HS256", HS_HEADER, "{\"iss\":\"" ISS "\",\"aud\":\"api\",\"exp\":1699999999}", JWTK_EXPIRED, "expired");
    expect(v, ctx, "HS256", HS_HEADER, "{\"iss\":\"" ISS "\",\"aud\":\"api\",\"exp\":1700003600,\"nbf\":1700000100}",
           JWTK_NOT_YET_VALID, "nbf");
    expect(v, ctx, "HS256", HS_HEADER, "{\"iss\":\"https://evil\",\"aud\":\"api\",\"exp\":1700003600}", JWTK_BAD_ISSUER, "iss");
    expect(v, ctx, "HS256", HS_HEADER, "{\"iss\":\"" ISS "\",\"aud\":\"web\",\"exp\":1700003600}", JWTK_BAD_AUDIENCE, "aud");
    expect(v, ctx, "HS256", HS_HEADER, "{\"iss\":\"" ISS "\",\"aud\":\"api\"}", JWTK_MISSING_CLAIM, "no exp");
    expect(v, ctx, "HS256", HS_HEADER, "{\"iss\":\"" ISS "\",\"aud\":\"api\",\"exp\":\"soon\"}", JWTK_BAD_CLAIM_TYPE, "exp string");
    expect(v, ctx, "HS256", "{\"alg\":\"HS256\",\"kid\":\"h1\",\"crit\":[\"x\"],\"x\":1}", GOOD_CLAIMS, JWTK_CRIT_UNSUPPORTED, "crit");
    expect(strict, ctx, "HS256", HS_HEADER, GOOD_CLAIMS, JWTK_BAD_TYP, "typ JWT, want at+jwt");
    expect(strict, ctx, "HS256", "{\"alg\":\"HS256\",\"kid\":\"h1\",\"typ\":\"at+jwt\"}",
           "{\"iss\":\"" ISS "\",\"sub\":\"s\",\"aud\":\"api\",\"exp\":1700003600,\"nonce\":\"other\"}", JWTK_BAD_NONCE, "nonce");
    expect(v, ctx, "HS256", HS_HEADER, "{\"iss\":\"" ISS "\",\"aud\":\"api\",\"exp\":1700003600,\"iat\":1700000100}",
           JWTK_ISSUED_IN_FUTURE, "iat in the future");
    {
        /* keys_unavailable: nothing loaded at all; the earlier checks still come first. */
        jwtk_keystore *empty = NULL;
        jwtk_verifier *ev;
        jwtk_keystore_new(&empty);
        ev = verifier_with(empty, BASE_CONFIG);
        expect(ev, ctx, "HS256", HS_HEADER, GOOD_CLAIMS, JWTK_KEYS_UNAVAILABLE, "no keys loaded");
        expect(ev, ctx, "none", "{\"alg\":\"none\"}", GOOD_CLAIMS, JWTK_UNSUPPORTED_ALG, "alg none before keys");
        CHECK(jwtk_status_http(JWTK_KEYS_UNAVAILABLE) == 503, "503");
        jwtk_verifier_free(ev);
        jwtk_keystore_free(empty);
    }
    jwtk_verifier_free(v);
    jwtk_verifier_free(rsv);
    jwtk_verifier_free(strict);
    jwtk_verifier_free(rs_only);
    jwtk_keystore_free(ks);
    jwtk_keystore_free(rs);
    jwtk_ctx_free(ctx);
}

/* Keys per issuer: a token is checked only with its own issuer's keys. */
static void test_issuers_and_rotation(void) {
    jwtk_keystore *ks = NULL;
    jwtk_verifier *v, *any;
    jwtk_ctx *ctx = NULL;
    const char *a = "https://a.example", *b = "https://b.example";
    const char *a_claims = "{\"iss\":\"https://a.example\",\"exp\":1700003600}";
    const char *b_claims = "{\"iss\":\"https://b.example\",\"exp\":1700003600}";
    const char *c_claims = "{\"iss\":\"https://c.example\",\"exp\":1700003600}";
    minted t;
    jwtk_keystore_new(&ks);
    jwtk_ctx_new(&ctx);
    CHECK_STATUS(jwtk_keystore_load_jwks(ks, a, strlen(a), mint_rsa_jwks(), strlen(mint_rsa_jwks())), JWTK_OK, "load A");
    CHECK_STATUS(jwtk_keystore_load_jwks(ks, b, strlen(b), mint_rsa2_jwks(), strlen(mint_rsa2_jwks())), JWTK_OK, "load B");
    v = verifier_with(ks, "{\"issuers\":[\"https://a.example\",\"https://b.example\",\"https://d.example\"],\"leeway\":0}");
    any = verifier_with(ks, "{\"leeway\":0}");
    expect(v, ctx, "RS256", RS_HEADER, a_claims, JWTK_OK, "A's token with A's key");
    t = mint_token_rsa2("{\"alg\":\"RS256\",\"kid\":\"r2\"}", b_claims);
    CHECK_STATUS(jwtk_verify(v, ctx, t.ptr, t.len, NOW, NULL), JWTK_OK, "B's token with B's key");
    mint_free(t);
    t = mint_token_rsa2("{\"alg\":\"RS256\",\"kid\":\"r2\"}", a_claims);
    CHECK_STATUS(jwtk_verify(v, ctx, t.ptr, t.len, NOW, NULL), JWTK_UNKNOWN_KID, "B's key cannot sign for A");
    mint_free(t);
    expect(v, ctx, "RS256", RS_HEADER, c_claims, JWTK_UNKNOWN_ISSUER, "issuer C: no keys, not accepted");
    expect(v, ctx, "RS256", RS_HEADER, "{\"iss\":\"https://d.example\",\"exp\":1700003600}", JWTK_KEYS_UNAVAILABLE,
           "issuer D: accepted, no keys");
    expect(any, ctx, "RS256", RS_HEADER, c_claims, JWTK_KEYS_UNAVAILABLE, "issuer C with a verifier accepting any issuer");
    expect(v, ctx, "RS256", RS_HEADER, "{\"exp\":1700003600}", JWTK_MISSING_CLAIM, "no iss to choose keys by");
    /* Rotation: A's keys become r2; tokens by r1 stop verifying at once, on the same ctx. */
    CHECK_STATUS(jwtk_keystore_load_jwks(ks, a, strlen(a), mint_rsa2_jwks(), strlen(mint_rsa2_jwks())), JWTK_OK, "rotate A");
    expect(v, ctx, "RS256", RS_HEADER, a_claims, JWTK_UNKNOWN_KID, "A's old key is gone");
    t = mint_token_rsa2("{\"alg\":\"RS256\",\"kid\":\"r2\"}", a_claims);
    CHECK_STATUS(jwtk_verify(v, ctx, t.ptr, t.len, NOW, NULL), JWTK_OK, "A's new key verifies");
    mint_free(t);
    /* Any-issuer keys serve issuers without keys of their own. */
    CHECK_STATUS(jwtk_keystore_load_jwks(ks, NULL, 0, mint_rsa_jwks(), strlen(mint_rsa_jwks())), JWTK_OK, "load any-issuer");
    expect(any, ctx, "RS256", RS_HEADER, c_claims, JWTK_OK, "issuer C through the any-issuer keys");
    jwtk_verifier_free(v);
    jwtk_verifier_free(any);
    jwtk_keystore_free(ks);
    jwtk_ctx_free(ctx);
}

/* The verified-token cache with keys per issuer: a repeated token is routed by its cached claims
 * (no payload parse) and must get exactly the verdicts, counters and claims of the full path. */
struct cache_counts { unsigned long long hits, misses, allowed, denied; };

static struct cache_counts cache_counts(jwtk_verifier *v) {
    jwtk_stats s;
    struct cache_counts c;
    memset(&s, 0, sizeof s);
    s.struct_size = sizeof s;
    jwtk_stats_get(v, &s);
    c.hits = s.cache_hits; c.misses = s.cache_misses; c.allowed = s.allowed; c.denied = s.denied;
    return c;
}

/* Verifies `t` at `now` and checks the status and how the cache counters and verdict counters moved. */
static void expect_cached(jwtk_verifier *v, jwtk_ctx *ctx, minted t, int64_t now, int want, int hits, int misses,
                          const char *what) {
    struct cache_counts before = cache_counts(v), after;
    int ok = want == JWTK_OK;
    CHECK_STATUS(jwtk_verify(v, ctx, t.ptr, t.len, now, NULL), want, what);
    after = cache_counts(v);
    CHECK(after.hits - before.hits == (unsigned long long)hits && after.misses - before.misses == (unsigned long long)misses,
          "%s: cache hits +%llu misses +%llu, want +%d +%d", what, after.hits - before.hits,
          after.misses - before.misses, hits, misses);
    CHECK(after.allowed - before.allowed == (unsigned long long)ok && after.denied - before.denied == (unsigned long long)!ok,
          "%s: allowed +%llu denied +%llu", what, after.allowed - before.allowed, after.denied - before.denied);
}

static void test_cache_with_issuers(void) {
    jwtk_keystore *ks = NULL;
    jwtk_verifier *v;
    jwtk_ctx *ctx = NULL;
    const char *a = "https://a.example", *c = "https://c.example";
    const char *a_claims = "{\"iss\":\"https://a.example\",\"sub\":\"s\\u00e9\",\"aud\":\"api\",\"exp\":1700003600,"
                           "\"nbf\":1699999000,\"iat\":1699999990,\"org\":{\"id\":7}}";
    const char *c_claims = "{\"iss\":\"https://c.example\",\"aud\":\"api\",\"exp\":1700003600}";
    minted ta = mint_token("RS256", RS_HEADER, a_claims);
    minted tc = mint_token("RS256", RS_HEADER, c_claims);
    minted tx = mint_token("RS256", RS_HEADER, "{\"iss\":\"https://a\\u002eexample\",\"aud\":\"api\",\"exp\":1700003600}");
    minted tn = mint_token("RS256", RS_HEADER, "{\"aud\":\"api\",\"exp\":1700003600}");
    minted tu = mint_token("RS256", RS_HEADER, "{\"iss\":\"https://u.example\",\"aud\":\"api\",\"exp\":1700003600}");
    jwtk_claims first, again;
    jwtk_str value;
    int type;
    jwtk_keystore_new(&ks);
    jwtk_ctx_new(&ctx);
    CHECK_STATUS(jwtk_keystore_load_jwks(ks, a, strlen(a), mint_rsa_jwks(), strlen(mint_rsa_jwks())), JWTK_OK, "load A");
    v = verifier_with(ks, "{\"issuers\":[\"https://a.example\",\"https://c.example\"],"
                          "\"audiences\":[\"api\"],\"leeway\":0,\"cache\":true}");

    /* A miss, then hits with the same claims out, the same jwtk_claim answers and the same counters. */
    memset(&first, 0, sizeof first);
    first.struct_size = sizeof first;
    CHECK_STATUS(jwtk_verify(v, ctx, ta.ptr, ta.len, NOW, &first), JWTK_OK, "A's token, first");
    memset(&again, 0, sizeof again);
    again.struct_size = sizeof again;
    {
        struct cache_counts before = cache_counts(v), after;
        CHECK_STATUS(jwtk_verify(v, ctx, ta.ptr, ta.len, NOW, &again), JWTK_OK, "A's token, again");
        after = cache_counts(v);
        CHECK(before.hits == 0 && before.misses == 1 && after.hits == 1 && after.misses == 1 && after.allowed == 2,
              "a miss then a hit: hits %llu misses %llu allowed %llu", after.hits, after.misses, after.allowed);
    }
    CHECK(str_is(again.iss, a) && str_is(again.sub, "s\xc3\xa9") && str_is(again.alg, "RS256") && str_is(again.kid, "r1") &&
          again.exp == first.exp && again.nbf == first.nbf && again.iat == first.iat && again.flags == first.flags,
          "claims out on the hit");
    CHECK(again.payload.ptr == first.payload.ptr && again.payload.len == first.payload.len &&
          again.claims_json.len == first.claims_json.len && again.claims_json.len == strlen(a_claims) &&
          memcmp(again.claims_json.ptr, a_claims, strlen(a_claims)) == 0, "payload and claims JSON on the hit");
    CHECK_STATUS(jwtk_claim(ctx, "org.id", 6, &value, &type), JWTK_OK, "jwtk_claim after the hit");
    CHECK(type == JWTK_JSON_NUMBER && str_is(value, "7"), "org.id after the hit");
    /* The hit's pointers and jwtk_claim stay valid after its entry leaves the cache (another ctx finds it
     * expired, which drops it): a ctx holds the entry it was answered from until its next call (ASan and
     * valgrind run this too). Then the token is cached again for what follows. */
    {
        jwtk_ctx *other = NULL;
        jwtk_ctx_new(&other);
        CHECK_STATUS(jwtk_verify(v, other, ta.ptr, ta.len, 1700003600 + 5, NULL), JWTK_EXPIRED,
                     "another ctx drops the entry");
        jwtk_ctx_free(other);
        CHECK(str_is(again.iss, a) && str_is(again.sub, "s\xc3\xa9") && str_is(again.kid, "r1") &&
              again.claims_json.len == strlen(a_claims) &&
              memcmp(again.claims_json.ptr, a_claims, strlen(a_claims)) == 0,
              "the hit's claims after its entry left the cache");
        CHECK_STATUS(jwtk_claim(ctx, "org.id", 6, &value, &type), JWTK_OK, "jwtk_claim after the entry left");
        CHECK(type == JWTK_JSON_NUMBER && str_is(value, "7"), "org.id after the entry left the cache");
        CHECK_STATUS(jwtk_claim(ctx, "sub", 3, &value, &type), JWTK_OK, "sub after the entry left");
        CHECK(type == JWTK_JSON_STRING && str_is(value, "s\xc3\xa9"), "sub (escaped in the token) after it left");
        CHECK_STATUS(jwtk_verify(v, ctx, ta.ptr, ta.len, NOW, NULL), JWTK_OK, "A's token cached again");
    }

    /* Times are re-checked on the hit (which drops the entry): expired and not yet valid, then a full verify. */
    expect_cached(v, ctx, ta, 1700003600 + 5, JWTK_EXPIRED, 1, 0, "cached, then expired");
    expect_cached(v, ctx, ta, NOW, JWTK_OK, 0, 1, "expired entry dropped: verified in full");
    expect_cached(v, ctx, ta, 1699999000 - 5, JWTK_NOT_YET_VALID, 1, 0, "cached, not yet valid");
    expect_cached(v, ctx, ta, NOW, JWTK_OK, 0, 1, "again in full");
    expect_cached(v, ctx, ta, NOW, JWTK_OK, 1, 0, "and a hit");

    /* Rotation: A's key r1 is replaced by r2; the cached token must stop hitting at once. */
    CHECK_STATUS(jwtk_keystore_load_jwks(ks, a, strlen(a), mint_rsa2_jwks(), strlen(mint_rsa2_jwks())), JWTK_OK, "rotate A");
    expect_cached(v, ctx, ta, NOW, JWTK_UNKNOWN_KID, 0, 1, "rotated-out key: no hit");
    expect_cached(v, ctx, ta, NOW, JWTK_UNKNOWN_KID, 0, 1, "rotated-out key: still no hit");
    /* r1 again (a new key object): verified in full once, then hits. */
    CHECK_STATUS(jwtk_keystore_load_jwks(ks, a, strlen(a), mint_rsa_jwks(), strlen(mint_rsa_jwks())), JWTK_OK, "r1 back");
    expect_cached(v, ctx, ta, NOW, JWTK_OK, 0, 1, "r1 back: verified in full");
    expect_cached(v, ctx, ta, NOW, JWTK_OK, 1, 0, "r1 back: a hit");

    /* Issuer C without keys of its own, no any-issuer keys: keys_unavailable, never cached. */
    expect_cached(v, ctx, tc, NOW, JWTK_KEYS_UNAVAILABLE, 0, 0, "C: no keys");
    /* Any-issuer keys serve C; its token is cached and hits. */
    CHECK_STATUS(jwtk_keystore_load_jwks(ks, NULL, 0, mint_rsa_jwks(), strlen(mint_rsa_jwks())), JWTK_OK, "load any-issuer");
    expect_cached(v, ctx, tc, NOW, JWTK_OK, 0, 1, "C through the any-issuer keys");
    expect_cached(v, ctx, tc, NOW, JWTK_OK, 1, 0, "C through the any-issuer keys: a hit");
    /* An unaccepted issuer through the any-issuer keys: the policy says bad_issuer; nothing cached. */
    expect_cached(v, ctx, tu, NOW, JWTK_BAD_ISSUER, 0, 1, "U: any-issuer keys, not accepted");
    expect_cached(v, ctx, tu, NOW, JWTK_BAD_ISSUER, 0, 1, "U again: not cached");
    /* No iss at all: the any-issuer keys, then the policy (issuers configured: iss required). */
    expect_cached(v, ctx, tn, NOW, JWTK_MISSING_CLAIM, 0, 1, "no iss");
    /* An escaped iss is routed by parsing the payload, and still hits in the core. */
    expect_cached(v, ctx, tx, NOW, JWTK_OK, 0, 1, "escaped iss: A's keys, verified in full");
    expect_cached(v, ctx, tx, NOW, JWTK_OK, 1, 0, "escaped iss: a hit");
    /* C gains its own keys (r2): C's token, verified with the any-issuer r1, must not hit any more. */
    CHECK_STATUS(jwtk_keystore_load_jwks(ks, c, strlen(c), mint_rsa2_jwks(), strlen(mint_rsa2_jwks())), JWTK_OK, "load C");
    expect_cached(v, ctx, tc, NOW, JWTK_UNKNOWN_KID, 0, 1, "C's own keys: the any-issuer verification does not hit");
    expect_cached(v, ctx, tc, NOW, JWTK_UNKNOWN_KID, 0, 1, "C's own keys: still no hit");
    /* C's own keys are the same JWKS as the any-issuer keys: a separate key, so verified in full once. */
    CHECK_STATUS(jwtk_keystore_load_jwks(ks, c, strlen(c), mint_rsa_jwks(), strlen(mint_rsa_jwks())), JWTK_OK, "C = r1");
    expect_cached(v, ctx, tc, NOW, JWTK_OK, 0, 1, "C's own r1: verified in full");
    expect_cached(v, ctx, tc, NOW, JWTK_OK, 1, 0, "C's own r1: a hit");
    /* A's cached token is unaffected by C's and the any-issuer loads. */
    expect_cached(v, ctx, ta, NOW, JWTK_OK, 1, 0, "A still hits");
    {
        struct cache_counts total = cache_counts(v);
        jwtk_stats s;
        memset(&s, 0, sizeof s);
        s.struct_size = sizeof s;
        jwtk_stats_get(v, &s);
        CHECK(total.allowed + total.denied == total.hits + total.misses + s.denied_by_status[JWTK_KEYS_UNAVAILABLE],
              "every verification counted once: allowed %llu denied %llu hits %llu misses %llu", total.allowed,
              total.denied, total.hits, total.misses);
    }
    /* jwtk_verify_batch routes cached tokens the same way (it counts verdicts, not cache outcomes, so it comes after
     * the check above). */
    {
        const char *tokens[5] = {ta.ptr, tc.ptr, tu.ptr, tx.ptr, tn.ptr};
        size_t lens[5] = {ta.len, tc.len, tu.len, tx.len, tn.len};
        int st[5];
        memset(st, 0, sizeof st);
        CHECK_STATUS(jwtk_verify_batch(v, tokens, lens, 5, NOW, st), JWTK_OK, "batch of cached tokens");
        CHECK(st[0] == JWTK_OK && st[1] == JWTK_OK && st[2] == JWTK_BAD_ISSUER && st[3] == JWTK_OK &&
              st[4] == JWTK_MISSING_CLAIM, "batch statuses %d %d %d %d %d", st[0], st[1], st[2], st[3], st[4]);
        /* A rotates to r2: A's cached tokens (plain and escaped iss) stop verifying in the batch too. */
        CHECK_STATUS(jwtk_keystore_load_jwks(ks, a, strlen(a), mint_rsa2_jwks(), strlen(mint_rsa2_jwks())), JWTK_OK,
                     "rotate A again");
        memset(st, 0, sizeof st);
        CHECK_STATUS(jwtk_verify_batch(v, tokens, lens, 5, NOW, st), JWTK_OK, "batch after the rotation");
        CHECK(st[0] == JWTK_UNKNOWN_KID && st[1] == JWTK_OK && st[3] == JWTK_UNKNOWN_KID,
              "batch statuses after the rotation %d %d %d", st[0], st[1], st[3]);
        /* Expired on the hit, at a fixed `now` (the batch's clocked verifier shares the cache). */
        memset(st, 0, sizeof st);
        CHECK_STATUS(jwtk_verify_batch(v, tokens + 1, lens + 1, 1, 1700003600 + 5, st), JWTK_OK, "batch, later");
        CHECK(st[0] == JWTK_EXPIRED, "cached C token expired in the batch: %d", st[0]);
    }
    mint_free(ta);
    mint_free(tc);
    mint_free(tx);
    mint_free(tn);
    mint_free(tu);
    jwtk_verifier_free(v);
    jwtk_keystore_free(ks);
    jwtk_ctx_free(ctx);
}

/* A cache hit's jwtk_claims. The first hit of an entry fills it field by field and keeps a copy with the entry;
 * later hits, on any ctx, copy that (ClaimsTemplate.swift). Each must equal the miss's fields, its payload must
 * point into the caller's own buffer, struct_size and whatever lies past sizeof(jwtk_claims) must stay the
 * caller's, and an entry with an escaped string (decoded into each ctx's own arena) is never copied. Then several
 * threads make the first hit of one entry at once (ASan and valgrind run this too). */
#define TEMPLATE_THREADS 4
#define TEMPLATE_ROUNDS 200

static int same_str(jwtk_str a, jwtk_str b) {
    return a.len == b.len && (a.len == 0 ? a.ptr == b.ptr : a.ptr != NULL && b.ptr != NULL && memcmp(a.ptr, b.ptr, a.len) == 0);
}

/* `got` (from `token`) says what `want` (from `want_token`) says; the payload lies in each one's own token. */
static int same_claims(const jwtk_claims *got, const char *token, const jwtk_claims *want, const char *want_token) {
    return got->flags == want->flags && same_str(got->alg, want->alg) && same_str(got->kid, want->kid) &&
           same_str(got->typ, want->typ) && same_str(got->iss, want->iss) && same_str(got->sub, want->sub) &&
           same_str(got->aud, want->aud) && same_str(got->jti, want->jti) && same_str(got->payload, want->payload) &&
           same_str(got->claims_json, want->claims_json) && got->exp == want->exp && got->nbf == want->nbf &&
           got->iat == want->iat && got->payload.ptr - token == want->payload.ptr - want_token;
}

struct template_worker {
    jwtk_verifier *v;
    minted token;
    const jwtk_claims *want;
    const char *want_token;
    pthread_barrier_t *start;
    int wrong;
};

static void *template_loop(void *arg) {
    struct template_worker *w = arg;
    jwtk_ctx *ctx = NULL;
    jwtk_claims out;
    int i;
    jwtk_ctx_new(&ctx);
    pthread_barrier_wait(w->start);
    for (i = 0; i < TEMPLATE_ROUNDS; i++) {
        memset(&out, 0, sizeof out);
        out.struct_size = sizeof out;
        if (jwtk_verify(w->v, ctx, w->token.ptr, w->token.len, NOW, &out) != JWTK_OK ||
            !same_claims(&out, w->token.ptr, w->want, w->want_token))
            w->wrong++;
    }
    jwtk_ctx_free(ctx);
    return NULL;
}

static void test_cache_claims_template(void) {
    jwtk_keystore *ks = keystore_with(NULL, mint_hmac_jwks());
    jwtk_verifier *v = verifier_with(ks, "{\"issuers\":[\"" ISS "\"],\"audiences\":[\"api\"],\"leeway\":0,\"cache\":true}");
    const char *claims = "{\"iss\":\"" ISS "\",\"sub\":\"user-1\",\"aud\":[\"api\",\"web\"],\"jti\":\"j-1\","
                         "\"exp\":1700003600,\"nbf\":1699999000,\"iat\":1699999990}";
    minted t = mint_token("HS256", HS_HEADER, claims);
    minted copy = {malloc(t.len), t.len};
    minted escaped = mint_token("HS256", HS_HEADER, "{\"iss\":\"" ISS "\",\"sub\":\"s\\u00e9\",\"aud\":\"api\","
                                                    "\"exp\":1700003600}");
    minted fresh = mint_token("HS256", HS_HEADER, "{\"iss\":\"" ISS "\",\"sub\":\"racer\",\"aud\":\"api\","
                                                  "\"exp\":1700003600}");
    struct { jwtk_claims c; unsigned char tail[40]; } big;
    jwtk_claims miss, first, later, out;
    jwtk_ctx *a = NULL, *b = NULL;
    unsigned i, untouched = 1;
    memcpy(copy.ptr, t.ptr, t.len);
    jwtk_ctx_new(&a);
    jwtk_ctx_new(&b);

    memset(&miss, 0, sizeof miss);
    miss.struct_size = sizeof miss;
    CHECK_STATUS(jwtk_verify(v, a, t.ptr, t.len, NOW, &miss), JWTK_OK, "template: the miss");
    CHECK(str_is(miss.sub, "user-1") && str_is(miss.aud, "[\"api\",\"web\"]") && str_is(miss.jti, "j-1") &&
              str_is(miss.typ, "JWT") && (miss.flags & JWTK_CLAIMS_AUD_ARRAY) && miss.nbf == 1699999000,
          "template: the miss's claims");
    memset(&first, 0, sizeof first);
    first.struct_size = sizeof first;
    CHECK_STATUS(jwtk_verify(v, a, t.ptr, t.len, NOW, &first), JWTK_OK, "template: the first hit");
    CHECK(same_claims(&first, t.ptr, &miss, t.ptr), "template: the first hit's claims equal the miss's");
    /* Another ctx, the same token in another buffer: the kept copy, with the payload in this buffer. */
    memset(&later, 0, sizeof later);
    later.struct_size = sizeof later;
    CHECK_STATUS(jwtk_verify(v, b, copy.ptr, copy.len, NOW, &later), JWTK_OK, "template: a later hit");
    CHECK(same_claims(&later, copy.ptr, &miss, t.ptr) && later.payload.ptr > copy.ptr &&
              later.payload.ptr + later.payload.len < copy.ptr + copy.len && later.struct_size == sizeof later,
          "template: a later hit on another ctx and buffer");
    /* A caller with a larger struct (a newer header): struct_size kept, nothing past jwtk_claims written. */
    memset(&big, 0xA5, sizeof big);
    big.c.struct_size = sizeof big;
    CHECK_STATUS(jwtk_verify(v, b, t.ptr, t.len, NOW, &big.c), JWTK_OK, "template: a larger struct");
    for (i = 0; i < sizeof big.tail; i++) untouched &= big.tail[i] == 0xA5;
    CHECK(big.c.struct_size == sizeof big && untouched && same_claims(&big.c, t.ptr, &miss, t.ptr),
          "template: a larger struct keeps its size and its tail");
    /* A failure after a copied hit still zeroes everything after struct_size. */
    CHECK_STATUS(jwtk_verify(v, b, t.ptr, t.len, 1700003600 + 5, &later), JWTK_EXPIRED, "template: expired");
    CHECK(later.struct_size == sizeof later && later.iss.ptr == NULL && later.payload.ptr == NULL && later.exp == 0 &&
              later.flags == 0, "template: a failure reports nothing");

    /* An escaped sub: every hit on every ctx decodes it into that ctx's own arena. The ctx of the first hit is
     * freed at once, so a hit pointing into its arena would read freed memory (ASan, valgrind). */
    for (i = 0; i < 6; i++) {
        jwtk_ctx **ctx = i % 2 ? &b : &a;
        memset(&out, 0, sizeof out);
        out.struct_size = sizeof out;
        CHECK_STATUS(jwtk_verify(v, *ctx, escaped.ptr, escaped.len, NOW, &out), JWTK_OK, "template: escaped sub");
        CHECK(str_is(out.sub, "s\xc3\xa9") && str_is(out.iss, ISS), "template: escaped sub decoded, round %u", i);
        if (i == 1) {
            jwtk_ctx_free(*ctx);
            jwtk_ctx_new(ctx);
        }
    }

    /* Threads making the first hit of a just-cached entry at once: every one gets the miss's claims. */
    {
        pthread_barrier_t start;
        pthread_t th[TEMPLATE_THREADS];
        struct template_worker w[TEMPLATE_THREADS];
        int wrong = 0;
        memset(&miss, 0, sizeof miss);
        miss.struct_size = sizeof miss;
        CHECK_STATUS(jwtk_verify(v, a, fresh.ptr, fresh.len, NOW, &miss), JWTK_OK, "template: the racers' miss");
        pthread_barrier_init(&start, NULL, TEMPLATE_THREADS);
        for (i = 0; i < TEMPLATE_THREADS; i++) {
            w[i].v = v;
            w[i].token = fresh;
            w[i].want = &miss;
            w[i].want_token = fresh.ptr;
            w[i].start = &start;
            w[i].wrong = 0;
            pthread_create(&th[i], NULL, template_loop, &w[i]);
        }
        for (i = 0; i < TEMPLATE_THREADS; i++) {
            pthread_join(th[i], NULL);
            wrong += w[i].wrong;
        }
        pthread_barrier_destroy(&start);
        CHECK(wrong == 0, "template: %d of %d racing hits differ from the miss", wrong,
              TEMPLATE_THREADS * TEMPLATE_ROUNDS);
    }
    jwtk_ctx_free(a);
    jwtk_ctx_free(b);
    mint_free(t);
    mint_free(copy);
    mint_free(escaped);
    mint_free(fresh);
    jwtk_verifier_free(v);
    jwtk_keystore_free(ks);
}


static void test_batch_and_stats(void) {
    jwtk_keystore *ks = keystore_with(NULL, mint_hmac_jwks());
    jwtk_verifier *v = verifier_with(ks, BASE_CONFIG);
    jwtk_verifier *one = verifier_with(ks, "{\"issuers\":[\"" ISS "\"],\"audiences\":[\"api\"],\"leeway\":0,\"batch_threads\":1}");
    minted good = mint_token("HS256", HS_HEADER, GOOD_CLAIMS);
    minted expired = mint_token("HS256", HS_HEADER, "{\"iss\":\"" ISS "\",\"aud\":\"api\",\"exp\":1}");
    minted bad = tampered(good);
    const char *tokens[5];
    size_t lens[5];
    int st[5] = {99, 99, 99, 99, 99};
    jwtk_stats stats;
    tokens[0] = good.ptr; lens[0] = good.len;
    tokens[1] = expired.ptr; lens[1] = expired.len;
    tokens[2] = NULL; lens[2] = 4;
    tokens[3] = "x.y"; lens[3] = SIZE_MAX;
    tokens[4] = bad.ptr; lens[4] = bad.len;
    CHECK_STATUS(jwtk_verify_batch(one, tokens, lens, 5, NOW, st), JWTK_OK, "batch, 1 thread");
    CHECK(st[0] == JWTK_OK && st[1] == JWTK_EXPIRED && st[2] == JWTK_E_NULL && st[3] == JWTK_TOO_LARGE &&
          st[4] == JWTK_BAD_SIGNATURE, "batch statuses %d %d %d %d %d", st[0], st[1], st[2], st[3], st[4]);
    memset(st, 0, sizeof st);
    CHECK_STATUS(jwtk_verify_batch(v, tokens, lens, 5, NOW, st), JWTK_OK, "batch, all cores");
    CHECK(st[0] == JWTK_OK && st[1] == JWTK_EXPIRED && st[4] == JWTK_BAD_SIGNATURE, "batch statuses (threads)");
    CHECK_STATUS(jwtk_verify_batch(v, tokens, lens, 0, NOW, NULL), JWTK_OK, "n = 0");
    CHECK_STATUS(jwtk_verify_batch(v, tokens, lens, SIZE_MAX, NOW, st), JWTK_E_RANGE, "n = SIZE_MAX");
    CHECK_STATUS(jwtk_verify_batch(v, tokens, lens, 5, -5, st), JWTK_E_RANGE, "batch now negative");
    CHECK_STATUS(jwtk_verify_batch(v, tokens, NULL, 5, NOW, st), JWTK_E_NULL, "lens NULL");
    CHECK_STATUS(jwtk_verify_batch(v, tokens, lens, 5, NOW, NULL), JWTK_E_NULL, "statuses NULL");
    memset(&stats, 0, sizeof stats);
    stats.struct_size = sizeof stats;
    CHECK_STATUS(jwtk_stats_get(one, &stats), JWTK_OK, "stats");
    CHECK(stats.allowed == 1 && stats.denied == 3 && stats.denied_by_status[JWTK_EXPIRED] == 1 &&
          stats.denied_by_status[JWTK_TOO_LARGE] == 1 && stats.denied_by_status[JWTK_BAD_SIGNATURE] == 1,
          "stats counts: allowed %llu denied %llu", (unsigned long long)stats.allowed, (unsigned long long)stats.denied);
    CHECK(stats.jwks_loads == 1 && stats.keys_loaded == 1 && stats.last_success_unix > 0 &&
          stats.last_attempt_unix >= stats.last_success_unix, "keystore counters");
    CHECK(stats.jwks_fetches == 0 && stats.stale_served == 0, "pull-mode counters are 0 in this build");
    mint_free(good);
    mint_free(expired);
    mint_free(bad);
    jwtk_verifier_free(v);
    jwtk_verifier_free(one);
    jwtk_keystore_free(ks);
}

/* Threads verifying with their own ctx while the main thread reloads keys. */
struct worker { jwtk_verifier *v; minted token; int failures; };

static void *verify_loop(void *arg) {
    struct worker *w = arg;
    jwtk_ctx *ctx = NULL;
    jwtk_claims out;
    int i, n = getenv("JWTK_TEST_ITERATIONS") ? atoi(getenv("JWTK_TEST_ITERATIONS")) : 2000;
    jwtk_ctx_new(&ctx);
    for (i = 0; i < n; i++) {
        memset(&out, 0, sizeof out);
        out.struct_size = sizeof out;
        if (jwtk_verify(w->v, ctx, w->token.ptr, w->token.len, NOW, &out) != JWTK_OK || !str_is(out.sub, "user-1"))
            w->failures++;
    }
    jwtk_ctx_free(ctx);
    return NULL;
}

static void test_threads(void) {
    jwtk_keystore *ks = keystore_with(NULL, mint_hmac_jwks());
    jwtk_verifier *v = verifier_with(ks, BASE_CONFIG);
    struct worker w[2];
    pthread_t t[2];
    int i;
    for (i = 0; i < 2; i++) {
        w[i].v = v;
        w[i].token = mint_token("HS256", HS_HEADER, GOOD_CLAIMS);
        w[i].failures = 0;
        pthread_create(&t[i], NULL, verify_loop, &w[i]);
    }
    for (i = 0; i < 50; i++) jwtk_keystore_load_jwks(ks, NULL, 0, mint_hmac_jwks(), strlen(mint_hmac_jwks()));
    for (i = 0; i < 2; i++) {
        pthread_join(t[i], NULL);
        CHECK(w[i].failures == 0, "thread %d: %d failures while keys reloaded", i, w[i].failures);
        mint_free(w[i].token);
    }
    jwtk_verifier_free(v);
    jwtk_keystore_free(ks);
}

/* Exact counters with more live contexts than the library has rows a context writes alone (32): four threads,
 * each with 12 contexts at once (48 in all, so some share rows and add atomically), half of them freed and
 * made again halfway (a freed context's row goes to the next one), a batch thread beside them, cached and
 * uncached verifiers, allowed and denied tokens. Every verdict must be counted once, none lost. */
#define STRIPE_CTXS 12
#define STRIPE_ROUNDS 400
struct stripe_worker { jwtk_verifier *cached, *plain; minted good, bad; int batch; };

static void *stripe_loop(void *arg) {
    struct stripe_worker *w = arg;
    jwtk_ctx *ctx[STRIPE_CTXS];
    const char *tokens[2] = {w->good.ptr, w->bad.ptr};
    size_t lens[2] = {w->good.len, w->bad.len};
    int statuses[2], i, r;
    for (i = 0; i < STRIPE_CTXS; i++) jwtk_ctx_new(&ctx[i]);
    for (r = 0; r < STRIPE_ROUNDS; r++) {
        if (r == STRIPE_ROUNDS / 2)
            for (i = 0; i < STRIPE_CTXS; i += 2) { jwtk_ctx_free(ctx[i]); jwtk_ctx_new(&ctx[i]); }
        if (w->batch) {
            jwtk_verify_batch(w->cached, tokens, lens, 2, NOW, statuses);
            continue;
        }
        for (i = 0; i < STRIPE_CTXS; i++) {
            jwtk_verify(w->cached, ctx[i], w->good.ptr, w->good.len, NOW, NULL);
            jwtk_verify(w->plain, ctx[i], w->bad.ptr, w->bad.len, NOW, NULL);
        }
    }
    for (i = 0; i < STRIPE_CTXS; i++) jwtk_ctx_free(ctx[i]);
    return NULL;
}

static void test_counter_rows(void) {
    jwtk_keystore *ks = keystore_with(NULL, mint_hmac_jwks());
    jwtk_verifier *cached = verifier_with(ks, "{\"issuers\":[\"" ISS "\"],\"audiences\":[\"api\"],\"cache\":true}");
    jwtk_verifier *plain = verifier_with(ks, BASE_CONFIG);
    struct stripe_worker w[5];
    pthread_t t[5];
    jwtk_stats sc, sp;
    uint64_t verifiers = 4, each = (uint64_t)STRIPE_ROUNDS * STRIPE_CTXS, batches = STRIPE_ROUNDS;
    int i;
    for (i = 0; i < 5; i++) {
        w[i].cached = cached;
        w[i].plain = plain;
        w[i].good = mint_token("HS256", HS_HEADER, GOOD_CLAIMS);
        w[i].bad = mint_token("HS256", HS_HEADER, "{\"iss\":\"" ISS "\",\"aud\":\"web\",\"exp\":1700003600}");
        w[i].batch = i == 4;
        pthread_create(&t[i], NULL, stripe_loop, &w[i]);
    }
    for (i = 0; i < 5; i++) {
        pthread_join(t[i], NULL);
        mint_free(w[i].good);
        mint_free(w[i].bad);
    }
    memset(&sc, 0, sizeof sc);
    memset(&sp, 0, sizeof sp);
    sc.struct_size = sp.struct_size = sizeof sc;
    CHECK_STATUS(jwtk_stats_get(cached, &sc), JWTK_OK, "stats of the cached verifier");
    CHECK_STATUS(jwtk_stats_get(plain, &sp), JWTK_OK, "stats of the plain verifier");
    CHECK(sc.allowed == verifiers * each + batches, "cached: allowed %llu, expected %llu",
          (unsigned long long)sc.allowed, (unsigned long long)(verifiers * each + batches));
    CHECK(sc.denied == batches && sc.denied_by_status[JWTK_BAD_AUDIENCE] == batches,
          "cached: denied %llu (bad_audience %llu), expected %llu", (unsigned long long)sc.denied,
          (unsigned long long)sc.denied_by_status[JWTK_BAD_AUDIENCE], (unsigned long long)batches);
    CHECK(sp.denied == verifiers * each && sp.denied_by_status[JWTK_BAD_AUDIENCE] == verifiers * each &&
              sp.allowed == 0,
          "plain: denied %llu, allowed %llu, expected %llu denied", (unsigned long long)sp.denied,
          (unsigned long long)sp.allowed, (unsigned long long)(verifiers * each));
    jwtk_verifier_free(cached);
    jwtk_verifier_free(plain);
    jwtk_keystore_free(ks);
}

/* Handles made before fork() work in the child (nginx: built in the master, used in workers). */
static void test_fork(void) {
    jwtk_keystore *ks = keystore_with(NULL, mint_hmac_jwks());
    jwtk_verifier *v = verifier_with(ks, BASE_CONFIG);
    jwtk_ctx *ctx = NULL;
    minted t = mint_token("HS256", HS_HEADER, GOOD_CLAIMS);
    int status = -1;
    pid_t pid;
    jwtk_ctx_new(&ctx);
    CHECK_STATUS(jwtk_verify(v, ctx, t.ptr, t.len, NOW, NULL), JWTK_OK, "before fork");
    pid = fork();
    if (pid == 0) {
        jwtk_ctx *mine = NULL;
        int batch = -1;
        const char *tokens[1];
        size_t lens[1];
        int ok = jwtk_ctx_new(&mine) == JWTK_OK && jwtk_verify(v, mine, t.ptr, t.len, NOW, NULL) == JWTK_OK &&
                 jwtk_verify(v, ctx, t.ptr, t.len, NOW, NULL) == JWTK_OK;
        tokens[0] = t.ptr;
        lens[0] = t.len;
        ok = ok && jwtk_verify_batch(v, tokens, lens, 1, NOW, &batch) == JWTK_OK && batch == JWTK_OK &&
             jwtk_keystore_load_jwks(ks, NULL, 0, mint_hmac_jwks(), strlen(mint_hmac_jwks())) == JWTK_OK;
        /* A worker that exits cleanly frees what it holds (valgrind follows the child too). */
        jwtk_ctx_free(mine);
        jwtk_verifier_free(v);
        jwtk_keystore_free(ks);
        jwtk_ctx_free(ctx);
        mint_free(t);
        _exit(ok ? 0 : 1);
    }
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "child verifies with handles made before fork (status %d)", status);
    mint_free(t);
    jwtk_verifier_free(v);
    jwtk_keystore_free(ks);
    jwtk_ctx_free(ctx);
}

static void test_freed_handles(void) {
    jwtk_keystore *ks = NULL;
    jwtk_ctx *ctx = NULL;
    jwtk_keystore_new(&ks);
    jwtk_ctx_new(&ctx);
    jwtk_keystore_free(ks);
    jwtk_ctx_free(ctx);
    CHECK_STATUS(jwtk_keystore_start(ks), JWTK_E_HANDLE, "freed keystore");
    CHECK(jwtk_ctx_errmsg(ctx) != NULL, "errmsg of a freed ctx");
    jwtk_ctx_free(ctx); /* double free: detected, no-op */
}

int main(int argc, char **argv) {
    int freed = argc > 1 && strcmp(argv[1], "--freed") == 0;
    jwtk_keystore *ks = NULL;
    jwtk_verifier *v = NULL;
    jwtk_ctx *ctx = NULL;
    CHECK(thread_count() == 1, "one thread after loading the library: %d", thread_count());
    mint_init();
    /* No thread from any _new, a load, or a single verification. */
    jwtk_keystore_new(&ks);
    jwtk_ctx_new(&ctx);
    jwtk_keystore_load_jwks(ks, NULL, 0, mint_hmac_jwks(), strlen(mint_hmac_jwks()));
    v = verifier_with(ks, BASE_CONFIG);
    expect(v, ctx, "HS256", HS_HEADER, GOOD_CLAIMS, JWTK_OK, "first verification");
    CHECK(thread_count() == 1, "still one thread after _new, load and verify: %d", thread_count());
    jwtk_verifier_free(v);
    jwtk_keystore_free(ks);
    jwtk_ctx_free(ctx);

    test_fork(); /* first, while the process has one thread, as an nginx master does */
    test_version();
    test_status_helpers();
    test_handles_and_nulls();
    test_gateway_contract();
    test_keystore_loads();
    test_keystore_load_many();
    test_config();
    test_claim_requirements_config();
    test_claim_requirements_verdicts();
    test_check_claims();
    test_verify_and_claims();
    test_claim_at();
    test_payload_segment();
    test_token_statuses();
    test_issuers_and_rotation();
    test_cache_with_issuers();
    test_cache_claims_template();
    test_batch_and_stats();
    test_threads();
    test_counter_rows();
    if (freed) test_freed_handles();
    mint_cleanup();
    printf("c-tests: %d passed, %d failed\n", check_passed, check_failed);
    return check_failed == 0 ? 0 : 1;
}
