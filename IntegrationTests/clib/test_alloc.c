/* Steady-state allocation of jwtk_verify, jwtk_claim and jwtk_claim_at, counted (malloc_count.c): after a
 * warm-up, HS256 verification with claims and claim lookups allocates nothing at all in the process (the
 * HMAC path calls no allocating OpenSSL code), nor does a verifier with "claims" requirements, met or not. RS256 allocations are OpenSSL's own and are printed.
 * Prints "alloc-tests: N passed, M failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "jwtk.h"
#include "mint.h"

int check_passed, check_failed;
unsigned long malloc_count(void);

#define NOW 1700000000
#define CLAIMS "{\"iss\":\"https://issuer.example\",\"sub\":\"user-1\",\"aud\":[\"api\"],\"exp\":1700003600,\"name\":\"J\\u00fcrgen\",\"org\":{\"id\":7},\"scope\":\"openid read write\",\"roles\":[\"dev\",\"ops\"]}"

static unsigned long per_call(jwtk_verifier *v, jwtk_ctx *ctx, minted t, int with_claims, int rounds) {
    jwtk_claims out;
    jwtk_str value;
    int type, i, failures = 0;
    unsigned long before;
    for (i = 0; i < 100; i++) {   /* warm-up: per-thread scratch, prepared contexts, lazy globals */
        out.struct_size = sizeof out;
        jwtk_verify(v, ctx, t.ptr, t.len, NOW, &out);
    }
    before = malloc_count();
    for (i = 0; i < rounds; i++) {
        out.struct_size = sizeof out;
        if (jwtk_verify(v, ctx, t.ptr, t.len, NOW, &out) != JWTK_OK) failures++;
        if (with_claims) {
            if (jwtk_claim(ctx, "name", 4, &value, &type) != JWTK_OK || type != JWTK_JSON_STRING) failures++;
            if (jwtk_claim(ctx, "org.id", 6, &value, &type) != JWTK_OK || type != JWTK_JSON_NUMBER) failures++;
            if (jwtk_claim_at(ctx, "/org/id", 7, 0, &value, &type) != JWTK_OK || type != JWTK_JSON_NUMBER) failures++;
            if (jwtk_claim_at(ctx, "/name", 5, 0, &value, &type) != JWTK_OK || type != JWTK_JSON_STRING) failures++;
            if (jwtk_claim_at(ctx, "/aud", 4, JWTK_AT_JOIN, &value, &type) != JWTK_OK || type != JWTK_JSON_ARRAY ||
                value.len != 3) failures++;
            if (jwtk_claim_at(ctx, "/aud/0", 6, 0, &value, &type) != JWTK_OK || type != JWTK_JSON_STRING) failures++;
            if (jwtk_claim_at(ctx, "/kid", 4, JWTK_AT_HEADER, &value, &type) != JWTK_OK || type != JWTK_JSON_STRING)
                failures++;
        }
    }
    CHECK(failures == 0, "%d failed verifications", failures);
    return malloc_count() - before;
}

int main(void) {
    jwtk_keystore *hs = NULL, *rs = NULL, *per_issuer = NULL;
    jwtk_verifier *hv = NULL, *rv = NULL, *cached = NULL, *routed = NULL, *routed_cached = NULL;
    jwtk_verifier *required = NULL, *unmet = NULL;
    jwtk_ctx *ctx = NULL;
    const char *config = "{\"issuers\":[\"https://issuer.example\"],\"audiences\":[\"api\"]}";
    /* Four requirements, one of each kind, top-level and nested, on a string, number, array and scope. */
    const char *required_config =
        "{\"issuers\":[\"https://issuer.example\"],\"audiences\":[\"api\"],\"claims\":["
        "{\"pointer\":\"/scope\",\"contains_all\":[\"read\",\"write\"]},{\"pointer\":\"/org/id\",\"equals\":7.0},"
        "{\"pointer\":\"/roles\",\"contains_any\":[\"admin\",\"ops\"]},"
        "{\"pointer\":\"/name\",\"one_of\":[\"x\",\"J\u00fcrgen\"]}]}";
    const char *unmet_config =
        "{\"issuers\":[\"https://issuer.example\"],\"claims\":[{\"pointer\":\"/scope\",\"contains_all\":[\"admin\"]}]}";
    const char *cache_config = "{\"issuers\":[\"https://issuer.example\"],\"audiences\":[\"api\"],\"cache\":true}";
    minted h, r;
    unsigned long n;
    mint_init();
    h = mint_token("HS256", "{\"alg\":\"HS256\",\"kid\":\"h1\"}", CLAIMS);
    r = mint_token("RS256", "{\"alg\":\"RS256\",\"kid\":\"r1\"}", CLAIMS);
    jwtk_keystore_new(&hs);
    jwtk_keystore_new(&rs);
    jwtk_ctx_new(&ctx);
    jwtk_keystore_load_jwks(hs, NULL, 0, mint_hmac_jwks(), strlen(mint_hmac_jwks()));
    jwtk_keystore_load_jwks(rs, NULL, 0, mint_rsa_jwks(), strlen(mint_rsa_jwks()));
    jwtk_verifier_new(config, strlen(config), hs, &hv);
    jwtk_verifier_new(config, strlen(config), rs, &rv);
    jwtk_verifier_new(cache_config, strlen(cache_config), hs, &cached);
    /* Keys per issuer: every token is routed by its iss (a cache hit by the cached claims). */
    jwtk_keystore_new(&per_issuer);
    jwtk_keystore_load_jwks(per_issuer, "https://issuer.example", 22, mint_hmac_jwks(), strlen(mint_hmac_jwks()));
    jwtk_verifier_new(config, strlen(config), per_issuer, &routed);
    jwtk_verifier_new(cache_config, strlen(cache_config), per_issuer, &routed_cached);

    n = per_call(hv, ctx, h, 1, 1000);
    printf("HS256 jwtk_verify + 2 jwtk_claim + 5 jwtk_claim_at: %lu allocations in 1000 rounds\n", n);
    CHECK(n == 0, "HS256 allocates in steady state: %lu", n);
    n = per_call(cached, ctx, h, 1, 1000);
    printf("HS256 cache hit + 2 jwtk_claim + 5 jwtk_claim_at: %lu allocations in 1000 rounds\n", n);
    CHECK(n == 0, "cache hits allocate in steady state: %lu", n);
    n = per_call(routed, ctx, h, 1, 1000);
    printf("HS256 routed by iss + 2 jwtk_claim + 5 jwtk_claim_at: %lu allocations in 1000 rounds\n", n);
    CHECK(n == 0, "routed verifications allocate in steady state: %lu", n);
    n = per_call(routed_cached, ctx, h, 1, 1000);
    printf("HS256 routed cache hit + 2 jwtk_claim + 5 jwtk_claim_at: %lu allocations in 1000 rounds\n", n);
    CHECK(n == 0, "routed cache hits allocate in steady state: %lu", n);
    jwtk_verifier_new(required_config, strlen(required_config), hs, &required);
    jwtk_verifier_new(unmet_config, strlen(unmet_config), hs, &unmet);
    CHECK(required != NULL && unmet != NULL, "verifiers with claim requirements");
    n = per_call(required, ctx, h, 1, 1000);
    printf("HS256 with 4 claim requirements + 2 jwtk_claim + 5 jwtk_claim_at: %lu allocations in 1000 rounds\n", n);
    CHECK(n == 0, "claim requirements allocate in steady state: %lu", n);
    {
        /* A requirement that fails: the verdict (403) allocates nothing either. */
        int i, wrong = 0;
        unsigned long before;
        for (i = 0; i < 100; i++) jwtk_verify(unmet, ctx, h.ptr, h.len, NOW, NULL);
        before = malloc_count();
        for (i = 0; i < 1000; i++) wrong += jwtk_verify(unmet, ctx, h.ptr, h.len, NOW, NULL) != JWTK_CLAIM_REQUIREMENT_FAILED;
        n = malloc_count() - before;
        printf("HS256 unmet claim requirement: %lu allocations in 1000 rounds\n", n);
        CHECK(wrong == 0, "%d verdicts other than claim_requirement_failed", wrong);
        CHECK(n == 0, "an unmet claim requirement allocates: %lu", n);
    }
    n = per_call(rv, ctx, r, 0, 200);
    printf("RS256 jwtk_verify: %.1f allocations per call (all OpenSSL's; see README)\n", n / 200.0);

    jwtk_verifier_free(hv);
    jwtk_verifier_free(rv);
    jwtk_verifier_free(cached);
    jwtk_verifier_free(routed);
    jwtk_verifier_free(routed_cached);
    jwtk_verifier_free(required);
    jwtk_verifier_free(unmet);
    jwtk_keystore_free(per_issuer);
    jwtk_keystore_free(hs);
    jwtk_keystore_free(rs);
    jwtk_ctx_free(ctx);
    mint_free(h);
    mint_free(r);
    mint_cleanup();
    printf("alloc-tests: %d passed, %d failed\n", check_passed, check_failed);
    return check_failed == 0 ? 0 : 1;
}
