/* LINE web login from C: "channel_secret" in a provider "line" config verifies HS256 ID tokens
 * (no kid) signed with that secret, in push mode (with and without LINE's JWKS loaded for its
 * issuer) and in pull mode (before any fetch); bad secrets and misplaced keys are JWTK_E_CONFIG.
 * Tokens are signed at run time with OpenSSL HMAC (mint.c's 32-byte secret). Prints
 * "line-tests: N passed, M failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "jwtk.h"
#include "mint.h"

int check_passed, check_failed;

#define NOW 1700000000
#define LINE_ISS "https://access.line.me"
#define CHANNEL "1234567890"
/* mint.c signs HS256 with these 32 bytes. */
#define SECRET "0123456789abcdef0123456789abcdef"
#define OTHER_SECRET "fedcba9876543210fedcba9876543210"
#define LINE_HEADER "{\"alg\":\"HS256\",\"typ\":\"JWT\"}"
#define LINE_CLAIMS "{\"iss\":\"" LINE_ISS "\",\"sub\":\"U1234\",\"aud\":\"" CHANNEL "\",\"exp\":1700003600," \
                    "\"iat\":1699999990,\"amr\":[\"pwd\"]}"
#define LINE_CONFIG(secret) "{\"provider\":\"line\",\"audiences\":[\"" CHANNEL "\"],\"channel_secret\":\"" secret "\"}"

static int verify(jwtk_verifier *v, jwtk_ctx *ctx, minted t, jwtk_claims *out) {
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    return jwtk_verify(v, ctx, t.ptr, t.len, NOW, out);
}

static jwtk_verifier *make(jwtk_keystore *ks, jwtk_ctx *ctx, const char *config, int want) {
    jwtk_verifier *v = NULL;
    int rc = jwtk_verifier_new_ex(config, strlen(config), ks, ctx, &v);
    CHECK_STATUS(rc, want, config);
    if (rc != JWTK_OK) CHECK(v == NULL, "no verifier on error");
    return v;
}

static void test_push_mode(minted token) {
    jwtk_keystore *ks = NULL;
    jwtk_ctx *ctx = NULL;
    jwtk_claims out;
    jwtk_verifier *v, *other;
    jwtk_keystore_new(&ks);
    jwtk_ctx_new(&ctx);
    v = make(ks, ctx, LINE_CONFIG(SECRET), JWTK_OK);
    CHECK_STATUS(verify(v, ctx, token, &out), JWTK_OK, "HS256 with the channel secret, nothing loaded");
    CHECK(out.sub.len == 5 && memcmp(out.sub.ptr, "U1234", 5) == 0, "sub");
    CHECK(out.alg.len == 5 && memcmp(out.alg.ptr, "HS256", 5) == 0, "alg");
    /* LINE's (here: an RSA) key set loaded for LINE's issuer: merged with the secret, not replacing it. */
    CHECK_STATUS(jwtk_keystore_load_jwks(ks, LINE_ISS, strlen(LINE_ISS), mint_rsa_jwks(), strlen(mint_rsa_jwks())),
                 JWTK_OK, "load LINE's JWKS for its issuer");
    CHECK_STATUS(verify(v, ctx, token, &out), JWTK_OK, "still verifies after a push load for the issuer");
    /* A second verifier with the same secret shares it; another secret for the issuer is refused. */
    other = make(ks, ctx, LINE_CONFIG(SECRET), JWTK_OK);
    CHECK_STATUS(verify(other, ctx, token, &out), JWTK_OK, "second verifier, same secret");
    jwtk_verifier_free(other);
    CHECK(make(ks, ctx, LINE_CONFIG(OTHER_SECRET), JWTK_E_CONFIG) == NULL, "another secret");
    CHECK(strstr(jwtk_ctx_errmsg(ctx), "channel_secret") != NULL, "errmsg: %s", jwtk_ctx_errmsg(ctx));
    jwtk_verifier_free(v);
    jwtk_keystore_free(ks);

    /* Signed with another secret than the one configured: a bad signature. */
    jwtk_keystore_new(&ks);
    v = make(ks, ctx, LINE_CONFIG(OTHER_SECRET), JWTK_OK);
    CHECK_STATUS(verify(v, ctx, token, &out), JWTK_BAD_SIGNATURE, "wrong channel secret");
    jwtk_verifier_free(v);
    jwtk_keystore_free(ks);

    /* Without a secret the LINE preset has no key for HS256 tokens. */
    jwtk_keystore_new(&ks);
    v = make(ks, ctx, "{\"provider\":\"line\",\"audiences\":[\"" CHANNEL "\"]}", JWTK_OK);
    CHECK(verify(v, ctx, token, &out) != JWTK_OK, "no channel secret: not verified");
    jwtk_verifier_free(v);
    jwtk_keystore_free(ks);
    jwtk_ctx_free(ctx);
}

/* Pull mode (a loopback URL nothing listens on, never started): the secret is published at once. */
static void test_pull_mode(minted token) {
    jwtk_keystore *ks = NULL;
    jwtk_ctx *ctx = NULL;
    jwtk_claims out;
    jwtk_verifier *v;
    const char *config = "{\"provider\":\"line\",\"audiences\":[\"" CHANNEL "\"],\"channel_secret\":\"" SECRET
                         "\",\"jwks_url\":\"http://127.0.0.1:9/certs\"}";
    jwtk_keystore_new(&ks);
    jwtk_ctx_new(&ctx);
    v = make(ks, ctx, config, JWTK_OK);
    CHECK_STATUS(verify(v, ctx, token, &out), JWTK_OK, "pull mode: HS256 before any fetch");
    /* The same URL and schedule with another secret is another source. */
    CHECK(make(ks, ctx,
               "{\"provider\":\"line\",\"audiences\":[\"" CHANNEL "\"],\"channel_secret\":\"" OTHER_SECRET
               "\",\"jwks_url\":\"http://127.0.0.1:9/certs\"}",
               JWTK_E_CONFIG) == NULL,
          "pull mode: another secret");
    /* The same source without the secret would drop it at the first fetch: refused. */
    CHECK(make(ks, ctx, "{\"provider\":\"line\",\"audiences\":[\"" CHANNEL "\"],\"jwks_url\":\"http://127.0.0.1:9/certs\"}",
               JWTK_E_CONFIG) == NULL,
          "pull mode: the same source without the secret");
    CHECK_STATUS(verify(v, ctx, token, &out), JWTK_OK, "pull mode: still verifies");
    jwtk_verifier_free(v);
    jwtk_keystore_free(ks);

    /* A secret given in push mode, then the issuer pulled without it (or with it) in the same keystore. */
    jwtk_keystore_new(&ks);
    v = make(ks, ctx, LINE_CONFIG(SECRET), JWTK_OK);
    CHECK(make(ks, ctx, "{\"provider\":\"line\",\"audiences\":[\"" CHANNEL "\"],\"jwks_url\":\"http://127.0.0.1:9/certs\"}",
               JWTK_E_CONFIG) == NULL,
          "push secret, then pull without it");
    CHECK(strstr(jwtk_ctx_errmsg(ctx), "channel_secret") != NULL, "errmsg: %s", jwtk_ctx_errmsg(ctx));
    jwtk_verifier_free(make(ks, ctx, config, JWTK_OK));
    CHECK_STATUS(verify(v, ctx, token, &out), JWTK_OK, "push secret, then pulled with it");
    jwtk_verifier_free(v);
    jwtk_keystore_free(ks);
    jwtk_ctx_free(ctx);
}

static void test_config_errors(void) {
    jwtk_keystore *ks = NULL;
    jwtk_ctx *ctx = NULL;
    struct { const char *config; const char *mention; } rows[] = {
        {LINE_CONFIG("0123456789abcdef0123456789abcde"), "channel_secret"}, /* 31 bytes < SHA-256's 32 */
        {LINE_CONFIG(""), "channel_secret"},
        {"{\"provider\":\"line\",\"audiences\":[\"" CHANNEL "\"],\"channel_secret\":32}", "channel_secret"},
        {"{\"provider\":\"google\",\"audiences\":[\"c\"],\"channel_secret\":\"" SECRET "\"}", "provider line"},
        {"{\"issuers\":[\"" LINE_ISS "\"],\"channel_secret\":\"" SECRET "\"}", "provider line"},
        {"{\"provider\":\"line\",\"audiences\":[\"" CHANNEL "\"],\"issuers\":[],\"channel_secret\":\"" SECRET "\"}", "issuer"},
    };
    size_t i;
    jwtk_keystore_new(&ks);
    jwtk_ctx_new(&ctx);
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        CHECK(make(ks, ctx, rows[i].config, JWTK_E_CONFIG) == NULL, "%s", rows[i].config);
        CHECK(strstr(jwtk_ctx_errmsg(ctx), rows[i].mention) != NULL, "errmsg for %s: %s", rows[i].config,
              jwtk_ctx_errmsg(ctx));
        /* The message never repeats the secret. */
        CHECK(strstr(jwtk_ctx_errmsg(ctx), "0123456789abcdef") == NULL, "secret in errmsg: %s", jwtk_ctx_errmsg(ctx));
    }
    jwtk_keystore_free(ks);
    jwtk_ctx_free(ctx);
}

int main(void) {
    minted token;
    mint_init();
    token = mint_token("HS256", LINE_HEADER, LINE_CLAIMS);
    test_push_mode(token);
    test_pull_mode(token);
    test_config_errors();
    mint_free(token);
    mint_cleanup();
    printf("line-tests: %d passed, %d failed\n", check_passed, check_failed);
    return check_failed == 0 ? 0 : 1;
}
