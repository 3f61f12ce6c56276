/* Pull mode (issue 9; OpenID Connect discovery, issue 18) against a real loopback HTTP JWKS server (jwks_server.py, started and stopped
 * here): no thread before jwtk_keystore_start, keys_unavailable before the first fetch, rotation within
 * one cooldown, an unknown-kid flood costing at most one fetch per cooldown (counted by the server),
 * stale keys verifying while the server answers 500 or hangs, jwtk_stats, and fork: a child whose
 * keystore was started in the parent restarts its refresher and fetches a key only it sees; a keystore
 * freed while every key URL hangs returns within the stated bound (stop_on_time).
 * Usage: test_pull PATH/TO/jwks_server.py. Prints "pull-tests: N passed, M failed". */
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "jwtk.h"
#include "mint.h"

int check_passed, check_failed;

#define CLAIMS "{\"iss\":\"https://issuer.example\",\"sub\":\"u\",\"exp\":4000000000}"
#define COOLDOWN 2

static FILE *server_in, *server_out;
static pid_t server_pid;
static int server_port;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_s(double s) {
    struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

static void server_start(const char *script) {
    int to[2], from[2];
    if (pipe(to) != 0 || pipe(from) != 0) abort();
    server_pid = fork();
    if (server_pid == 0) {
        dup2(to[0], 0);
        dup2(from[1], 1);
        close(to[1]);
        close(from[0]);
        execlp("python3", "python3", script, (char *)NULL);
        _exit(127);
    }
    close(to[0]);
    close(from[1]);
    server_in = fdopen(to[1], "w");
    server_out = fdopen(from[0], "r");
    {
        char line[64];   /* fgets, not fscanf("...\n"): that would wait for more than the line */
        if (!fgets(line, sizeof line, server_out) || sscanf(line, "PORT %d", &server_port) != 1) abort();
    }
}

/* One command, one answer line (into `answer`, which may be NULL). */
static void server_cmd(const char *json, char *answer, size_t size) {
    char line[65536];
    fprintf(server_in, "%s\n", json);
    fflush(server_in);
    if (!fgets(line, sizeof line, server_out)) abort();
    if (answer) snprintf(answer, size, "%s", line);
}

/* Serves `body` (a JSON document, escaped here for the command) at `path`, with extra route fields. */
static void serve(const char *path, const char *body, const char *extra) {
    static char cmd[65536];
    char escaped[60000];
    size_t o = 0;
    for (; *body && o + 2 < sizeof escaped; body++) {
        if (*body == '"' || *body == '\\') escaped[o++] = '\\';
        escaped[o++] = *body;
    }
    escaped[o] = 0;
    snprintf(cmd, sizeof cmd, "{\"cmd\":\"set\",\"path\":\"%s\",\"route\":{\"body\":\"%s\"%s%s}}", path, escaped,
             extra ? "," : "", extra ? extra : "");
    server_cmd(cmd, NULL, 0);
}

static int fetches_of(const char *path) {
    char answer[65536], key[300];
    const char *p;
    server_cmd("{\"cmd\":\"log\"}", answer, sizeof answer);
    snprintf(key, sizeof key, "\"%s\": ", path);
    p = strstr(answer, key);
    return p ? atoi(p + strlen(key)) : 0;
}

static int threads_now(void) {
    int n = 0;
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    if (!d) return -1;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

static jwtk_verifier *pull_verifier(jwtk_keystore *ks, const char *path, const char *extra) {
    char config[1024];
    jwtk_verifier *v = NULL;
    jwtk_ctx *ctx = NULL;
    int rc;
    jwtk_ctx_new(&ctx);
    snprintf(config, sizeof config,
             "{\"issuers\":[\"https://issuer.example\"],\"jwks_url\":\"http://127.0.0.1:%d%s\",\"cooldown\":%d%s%s}",
             server_port, path, COOLDOWN, extra ? "," : "", extra ? extra : "");
    rc = jwtk_verifier_new_ex(config, strlen(config), ks, ctx, &v);
    CHECK_STATUS(rc, JWTK_OK, jwtk_ctx_errmsg(ctx));
    jwtk_ctx_free(ctx);
    return v;
}

/* Polls until the token gets `want` or `seconds` pass; returns the seconds it took (-1: never). */
static double wait_for(jwtk_verifier *v, jwtk_ctx *ctx, minted t, int want, double seconds) {
    double start = now_s();
    while (now_s() - start < seconds) {
        if (jwtk_verify(v, ctx, t.ptr, t.len, 0, NULL) == want) return now_s() - start;
        sleep_s(0.02);
    }
    return -1;
}

static jwtk_stats stats_of(jwtk_verifier *v) {
    jwtk_stats s;
    memset(&s, 0, sizeof s);
    s.struct_size = sizeof s;
    CHECK_STATUS(jwtk_stats_get(v, &s), JWTK_OK, "stats");
    return s;
}

/* A provider preset with its keys from a mirror ("provider" plus "jwks_url"): the preset's issuers (both
 * of Google's spellings share the mirrored keys), algorithms and required claims, keys from the loopback
 * server; the provider itself is never contacted. The mirror serves a {kid: PEM} map whose value starts
 * with a newline, as Google's certificate endpoint may. */
static void preset_mirror(jwtk_ctx *ctx) {
    jwtk_keystore *ks = NULL;
    jwtk_verifier *v = NULL;
    char config[512], *map = mint_rsa_pem_map("r1", "\\n");
    int rc;
    minted good, spelled, no_iat, other_aud, hs;
    good = mint_token("RS256", "{\"alg\":\"RS256\",\"kid\":\"r1\"}",
                      "{\"iss\":\"https://accounts.google.com\",\"aud\":\"client-1\",\"sub\":\"u\",\"iat\":1,\"exp\":4000000000}");
    spelled = mint_token("RS256", "{\"alg\":\"RS256\",\"kid\":\"r1\"}",
                         "{\"iss\":\"accounts.google.com\",\"aud\":\"client-1\",\"sub\":\"u\",\"iat\":1,\"exp\":4000000000}");
    no_iat = mint_token("RS256", "{\"alg\":\"RS256\",\"kid\":\"r1\"}",
                        "{\"iss\":\"https://accounts.google.com\",\"aud\":\"client-1\",\"sub\":\"u\",\"exp\":4000000000}");
    other_aud = mint_token("RS256", "{\"alg\":\"RS256\",\"kid\":\"r1\"}",
                           "{\"iss\":\"https://accounts.google.com\",\"aud\":\"other\",\"sub\":\"u\",\"iat\":1,\"exp\":4000000000}");
    hs = mint_token("HS256", "{\"alg\":\"HS256\",\"kid\":\"h1\"}",
                    "{\"iss\":\"https://accounts.google.com\",\"aud\":\"client-1\",\"sub\":\"u\",\"iat\":1,\"exp\":4000000000}");
    serve("/mirror/google", map, NULL);
    jwtk_keystore_new(&ks);
    snprintf(config, sizeof config,
             "{\"provider\":\"google\",\"audiences\":[\"client-1\"],\"jwks_url\":\"http://127.0.0.1:%d/mirror/google\"}",
             server_port);
    rc = jwtk_verifier_new_ex(config, strlen(config), ks, ctx, &v);
    CHECK_STATUS(rc, JWTK_OK, jwtk_ctx_errmsg(ctx));
    CHECK_STATUS(jwtk_keystore_start(ks), JWTK_OK, "mirror: start");
    CHECK(wait_for(v, ctx, good, JWTK_OK, 5) >= 0, "mirror: the preset's token never verified");
    CHECK(fetches_of("/mirror/google") >= 1, "mirror: fetched %d times", fetches_of("/mirror/google"));
    CHECK_STATUS(jwtk_verify(v, ctx, spelled.ptr, spelled.len, 0, NULL), JWTK_OK, "mirror: issuer without https://");
    CHECK_STATUS(jwtk_verify(v, ctx, no_iat.ptr, no_iat.len, 0, NULL), JWTK_MISSING_CLAIM, "mirror: preset requires iat");
    CHECK_STATUS(jwtk_verify(v, ctx, other_aud.ptr, other_aud.len, 0, NULL), JWTK_BAD_AUDIENCE, "mirror: audience");
    CHECK_STATUS(jwtk_verify(v, ctx, hs.ptr, hs.len, 0, NULL), JWTK_ALG_NOT_ALLOWED, "mirror: preset allows RS256 only");
    jwtk_verifier_free(v);
    jwtk_keystore_free(ks);
    mint_free(good);
    mint_free(spelled);
    mint_free(no_iat);
    mint_free(other_aud);
    mint_free(hs);
    free(map);
}

/* OpenID Connect discovery ("discovery": true): the configurations refused, the document then the keys
 * from its jwks_uri (stats: discovery_fetches apart from jwks_fetches), key rotation, the keys endpoint
 * failing while the document is fine (stale keys verify), and documents of another issuer or without
 * jwks_uri refused (the keys URL is never asked). The document's own refresh (5 min at the soonest) and
 * a changed jwks_uri are tested in XCTest (DiscoveryTests) on a hand-moved clock. */
static void discovery(jwtk_ctx *ctx) {
    static const char *refused[] = {
        "{\"issuers\":[\"https://a.example\"],\"discovery\":true,\"jwks_url\":\"https://a.example/k\"}",
        "{\"issuers\":[\"https://a.example\",\"https://b.example\"],\"discovery\":true}",
        "{\"discovery\":true}",
        "{\"provider\":\"google\",\"audiences\":[\"x\"],\"discovery\":true}",
        "{\"issuers\":[\"http://idp.example\"],\"discovery\":true}",
        "{\"issuers\":[\"https://a.example?x=1\"],\"discovery\":true}",
        "{\"issuers\":[\"https://a.example\"],\"discovery\":\"yes\"}",
        "{\"issuers\":[\"https://a.example\"],\"discovery\":true,\"pull\":false}",
    };
    static const char *words[] = {"jwks_url", "exactly one", "exactly one", "provider", "loopback",
                                  "query or fragment", "\"discovery\": expected true or false", "\"pull\": false"};
    jwtk_keystore *ks = NULL, *bad = NULL;
    jwtk_verifier *v = NULL, *w = NULL;
    char issuer[128], config[512], claims[256], document[512], path[128];
    size_t i;
    int rc;
    minted r1, r2, t;
    jwtk_stats s;
    jwtk_keystore_new(&ks);
    for (i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        rc = jwtk_verifier_new_ex(refused[i], strlen(refused[i]), ks, ctx, &v);
        CHECK_STATUS(rc, JWTK_E_CONFIG, refused[i]);
        CHECK(strstr(jwtk_ctx_errmsg(ctx), words[i]) != NULL, "%s: %s", refused[i], jwtk_ctx_errmsg(ctx));
    }

    snprintf(issuer, sizeof issuer, "http://127.0.0.1:%d/oidc", server_port);
    snprintf(claims, sizeof claims, "{\"iss\":\"%s\",\"sub\":\"u\",\"exp\":4000000000}", issuer);
    r1 = mint_token("RS256", "{\"alg\":\"RS256\",\"kid\":\"r1\"}", claims);
    r2 = mint_token_rsa2("{\"alg\":\"RS256\",\"kid\":\"r2\"}", claims);
    snprintf(document, sizeof document, "{\"issuer\":\"%s\",\"jwks_uri\":\"%s/keys\"}", issuer, issuer);
    serve("/oidc/.well-known/openid-configuration", document, NULL);
    serve("/oidc/keys", mint_rsa_jwks(), "\"headers\":{\"Cache-Control\":\"max-age=1\"}");
    snprintf(config, sizeof config,
             "{\"issuers\":[\"%s\"],\"discovery\":true,\"cooldown\":%d,\"refresh_min\":1,\"refresh_max\":1}", issuer,
             COOLDOWN);
    rc = jwtk_verifier_new_ex(config, strlen(config), ks, ctx, &v);
    CHECK_STATUS(rc, JWTK_OK, jwtk_ctx_errmsg(ctx));
    CHECK_STATUS(jwtk_verify(v, ctx, r1.ptr, r1.len, 0, NULL), JWTK_KEYS_UNAVAILABLE, "discovery: before start");
    CHECK(fetches_of("/oidc/.well-known/openid-configuration") == 0, "discovery: no I/O before start");
    jwtk_keystore_start(ks);
    CHECK(wait_for(v, ctx, r1, JWTK_OK, 5) >= 0, "discovery: r1 never verified");
    s = stats_of(v);
    CHECK(s.discovery_fetches == 1 && s.discovery_fetch_failures == 0 && s.jwks_fetches >= 1,
          "discovery stats: %llu document fetches, %llu failed, %llu key fetches",
          (unsigned long long)s.discovery_fetches, (unsigned long long)s.discovery_fetch_failures,
          (unsigned long long)s.jwks_fetches);
    /* Key rotation: from the same jwks_uri, within one cooldown of the unknown kid. */
    serve("/oidc/keys", mint_rsa2_jwks(), "\"headers\":{\"Cache-Control\":\"max-age=1\"}");
    CHECK(wait_for(v, ctx, r2, JWTK_OK, COOLDOWN + 2) >= 0, "discovery: rotation to r2");
    /* The keys endpoint fails, the document is fine: the last good keys keep verifying (stale). */
    serve("/oidc/keys", "{}", "\"status\":500");
    sleep_s(2.5);
    CHECK_STATUS(jwtk_verify(v, ctx, r2.ptr, r2.len, 0, NULL), JWTK_OK, "discovery: stale keys while /keys fails");
    s = stats_of(v);
    CHECK(s.jwks_fetch_failures >= 1 && s.discovery_fetch_failures == 0 && s.discovery_fetches == 1,
          "discovery: %llu key failures, %llu document failures, %llu document fetches",
          (unsigned long long)s.jwks_fetch_failures, (unsigned long long)s.discovery_fetch_failures,
          (unsigned long long)s.discovery_fetches);
    CHECK(fetches_of("/oidc/.well-known/openid-configuration") == 1, "discovery: the document on its own schedule");

    /* Documents refused: another issuer (mix-up), no jwks_uri. The keys URL is never asked. */
    for (i = 0; i < 2; i++) {
        const char *name = i == 0 ? "mix" : "nouri";
        snprintf(issuer, sizeof issuer, "http://127.0.0.1:%d/%s", server_port, name);
        if (i == 0)
            snprintf(document, sizeof document, "{\"issuer\":\"https://elsewhere.example\",\"jwks_uri\":\"%s/keys\"}",
                     issuer);
        else
            snprintf(document, sizeof document, "{\"issuer\":\"%s\"}", issuer);
        snprintf(path, sizeof path, "/%s/.well-known/openid-configuration", name);
        serve(path, document, NULL);
        snprintf(path, sizeof path, "/%s/keys", name);
        serve(path, mint_rsa_jwks(), NULL);
        snprintf(claims, sizeof claims, "{\"iss\":\"%s\",\"sub\":\"u\",\"exp\":4000000000}", issuer);
        t = mint_token("RS256", "{\"alg\":\"RS256\",\"kid\":\"r1\"}", claims);
        jwtk_keystore_new(&bad);
        snprintf(config, sizeof config, "{\"issuers\":[\"%s\"],\"discovery\":true}", issuer);
        rc = jwtk_verifier_new_ex(config, strlen(config), bad, ctx, &w);
        CHECK_STATUS(rc, JWTK_OK, jwtk_ctx_errmsg(ctx));
        jwtk_keystore_start(bad);
        sleep_s(1);
        CHECK_STATUS(jwtk_verify(w, ctx, t.ptr, t.len, 0, NULL), JWTK_KEYS_UNAVAILABLE, name);
        s = stats_of(w);
        CHECK(s.discovery_fetch_failures >= 1 && s.remote_sources_without_keys == 1 && s.jwks_fetch_failures >= 1,
              "%s: %llu document failures", name, (unsigned long long)s.discovery_fetch_failures);
        CHECK(fetches_of(path) == 0, "%s: keys fetched from a refused document", name);
        jwtk_verifier_free(w);
        jwtk_keystore_free(bad);
        mint_free(t);
    }
    jwtk_verifier_free(v);
    jwtk_keystore_free(ks);
    mint_free(r1);
    mint_free(r2);
}

/* Stop on time (issue 24): a keystore in pull mode whose key URLs all accept the connection and never answer
 * (the server's "hang" routes: two JWKS URLs and a discovery document), freed while a fetch hangs. The
 * library's fetch timeout is 10 s; the free (verifiers, then the keystore, which stops and joins its refresher)
 * must return within the 1 s jwtk.h states (checked under 2 s), end the refresher thread, and start no fetch
 * afterwards (the server's own request log). */
static void stop_on_time(int threads_before) {
    static const char *paths[] = {"/hang-a", "/hang-b", "/hang-oidc/.well-known/openid-configuration"};
    jwtk_keystore *ks = NULL;
    jwtk_verifier *v[3] = {NULL, NULL, NULL};
    jwtk_ctx *ctx = NULL;
    char config[512];
    double start, freed;
    int i, requested = 0, after = 0;
    jwtk_ctx_new(&ctx);
    jwtk_keystore_new(&ks);
    for (i = 0; i < 3; i++) serve(paths[i], "{}", "\"mode\":\"hang\",\"seconds\":60");
    for (i = 0; i < 3; i++) {
        if (i < 2)
            snprintf(config, sizeof config,
                     "{\"issuers\":[\"https://hang-%c.example\"],\"jwks_url\":\"http://127.0.0.1:%d/hang-%c\"}",
                     'a' + i, server_port, 'a' + i);
        else
            snprintf(config, sizeof config, "{\"issuers\":[\"http://127.0.0.1:%d/hang-oidc\"],\"discovery\":true}",
                     server_port);
        CHECK_STATUS(jwtk_verifier_new_ex(config, strlen(config), ks, ctx, &v[i]), JWTK_OK, jwtk_ctx_errmsg(ctx));
    }
    CHECK_STATUS(jwtk_keystore_start(ks), JWTK_OK, "stop: start");
    for (start = now_s(); now_s() - start < 5 && requested == 0; sleep_s(0.05))
        for (requested = 0, i = 0; i < 3; i++) requested += fetches_of(paths[i]);
    CHECK(requested >= 1, "stop: no fetch is hanging");
    sleep_s(0.3);
    start = now_s();
    for (i = 0; i < 3; i++) jwtk_verifier_free(v[i]);
    jwtk_keystore_free(ks);
    freed = now_s() - start;
    printf("stop: keystore freed with every key URL hanging in %.2f ms\n", freed * 1e3);
    CHECK(freed < 2.0, "stop: freeing the keystore took %.2f s (fetch timeout 10 s)", freed);
    CHECK(threads_now() == threads_before, "stop: the refresher thread is gone: %d threads", threads_now());
    for (requested = 0, i = 0; i < 3; i++) requested += fetches_of(paths[i]);
    sleep_s(0.5);
    for (i = 0; i < 3; i++) after += fetches_of(paths[i]);
    CHECK(after == requested, "stop: %d fetches started after the free", after - requested);
    jwtk_ctx_free(ctx);
}

int main(int argc, char **argv) {
    jwtk_keystore *ks = NULL, *ks2 = NULL;
    jwtk_verifier *v = NULL, *v2 = NULL;
    jwtk_ctx *ctx = NULL;
    minted r1, r2, h;
    jwtk_stats s;
    double t;
    int i, before, fetched, status;
    pid_t child;
    if (argc != 2) {
        fprintf(stderr, "usage: test_pull jwks_server.py\n");
        return 2;
    }
    mint_init();
    r1 = mint_token("RS256", "{\"alg\":\"RS256\",\"kid\":\"r1\"}", CLAIMS);
    r2 = mint_token_rsa2("{\"alg\":\"RS256\",\"kid\":\"r2\"}", CLAIMS);
    server_start(argv[1]);
    serve("/rot", mint_rsa_jwks(), NULL);

    /* No thread at load or in any _new; keys_unavailable before the first fetch. */
    before = threads_now();
    jwtk_keystore_new(&ks);
    jwtk_ctx_new(&ctx);
    v = pull_verifier(ks, "/rot", NULL);
    CHECK(threads_now() == before, "a _new started a thread: %d -> %d", before, threads_now());
    CHECK_STATUS(jwtk_verify(v, ctx, r1.ptr, r1.len, 0, NULL), JWTK_KEYS_UNAVAILABLE, "before start");
    CHECK(jwtk_status_http(JWTK_KEYS_UNAVAILABLE) == 503, "keys_unavailable is 503");
    s = stats_of(v);
    CHECK(s.remote_sources == 1 && s.remote_sources_without_keys == 1 && s.jwks_fetches == 0,
          "stats before start: %llu sources, %llu without keys, %llu fetches", (unsigned long long)s.remote_sources,
          (unsigned long long)s.remote_sources_without_keys, (unsigned long long)s.jwks_fetches);
    CHECK(fetches_of("/rot") == 0, "no I/O before start");

    CHECK_STATUS(jwtk_keystore_start(ks), JWTK_OK, "start");
    CHECK_STATUS(jwtk_keystore_start(ks), JWTK_OK, "start again");
    CHECK(threads_now() == before + 1, "start: one thread: %d -> %d", before, threads_now());
    t = wait_for(v, ctx, r1, JWTK_OK, 5);
    CHECK(t >= 0, "first fetch: r1 never verified");
    CHECK(fetches_of("/rot") == 1, "first fetch: %d requests", fetches_of("/rot"));

    /* Rotation: r2 replaces r1; a token with r2 verifies within one cooldown, r1 stops verifying. */
    serve("/rot", mint_rsa2_jwks(), NULL);
    sleep_s(COOLDOWN);   /* the first fetch's cooldown has passed */
    CHECK_STATUS(jwtk_verify(v, ctx, r2.ptr, r2.len, 0, NULL), JWTK_UNKNOWN_KID, "r2 before the refresh");
    t = wait_for(v, ctx, r2, JWTK_OK, COOLDOWN + 1);
    CHECK(t >= 0 && t < COOLDOWN, "rotation took %.2f s (cooldown %d s)", t, COOLDOWN);
    CHECK_STATUS(jwtk_verify(v, ctx, r1.ptr, r1.len, 0, NULL), JWTK_UNKNOWN_KID, "removed key r1");
    s = stats_of(v);
    CHECK(s.unknown_kid_refreshes >= 1 && s.jwks_fetches == 2, "after rotation: %llu unknown-kid refreshes, %llu fetches",
          (unsigned long long)s.unknown_kid_refreshes, (unsigned long long)s.jwks_fetches);

    /* Unknown-kid flood: 10,000 tokens with random kids over ~2 cooldowns: at most one fetch per cooldown. */
    server_cmd("{\"cmd\":\"reset_log\"}", NULL, 0);
    {
        double start = now_s(), elapsed;
        int unknown = 0, allowed_fetches;
        for (i = 0; i < 10000; i++) {
            char header[128];
            minted f;
            snprintf(header, sizeof header, "{\"alg\":\"RS256\",\"kid\":\"rand-%d-%ld\"}", i, random());
            f = mint_token("HS256", header, CLAIMS);
            if (jwtk_verify(v, ctx, f.ptr, f.len, 0, NULL) == JWTK_UNKNOWN_KID) unknown++;
            mint_free(f);
            if (i % 2000 == 1999) sleep_s(0.8);
        }
        CHECK_STATUS(jwtk_verify(v, ctx, r2.ptr, r2.len, 0, NULL), JWTK_OK, "known kid during the flood");
        elapsed = now_s() - start;
        sleep_s(0.3);
        fetched = fetches_of("/rot");
        allowed_fetches = (int)(elapsed / COOLDOWN) + 1;
        printf("flood: 10000 unknown kids in %.1f s -> %d fetches (cooldown %d s)\n", elapsed, fetched, COOLDOWN);
        CHECK(unknown == 10000, "%d of 10000 were unknown_kid", unknown);
        CHECK(fetched >= 1 && fetched <= allowed_fetches, "flood: %d fetches in %.1f s, at most %d allowed", fetched,
              elapsed, allowed_fetches);
        s = stats_of(v);
        CHECK(s.unknown_kid_suppressed > 9000, "suppressed: %llu", (unsigned long long)s.unknown_kid_suppressed);
    }
    CHECK_STATUS(jwtk_verify(v, ctx, r2.ptr, r2.len, 0, NULL), JWTK_OK, "r2 still verifies");

    /* Fork: the child's keystore was started in the parent; the child rotates to a key only it fetches. */
    fflush(stdout);
    child = fork();
    if (child == 0) {
        int ok = 1;
        check_passed = check_failed = 0;
        CHECK(threads_now() == 1, "child starts with one thread: %d", threads_now());
        serve("/rot", mint_rsa_jwks(), NULL);   /* r1 again: only the child asks for it */
        sleep_s(COOLDOWN);
        CHECK_STATUS(jwtk_verify(v, ctx, r1.ptr, r1.len, 0, NULL), JWTK_UNKNOWN_KID, "child: r1 before its fetch");
        t = wait_for(v, ctx, r1, JWTK_OK, 10);
        CHECK(t >= 0, "child: r1 never verified after the rotation");
        CHECK(threads_now() == 2, "child: its own refresher thread: %d threads", threads_now());
        s = stats_of(v);
        CHECK(s.jwks_fetches >= 1, "child: stats count its own fetches: %llu", (unsigned long long)s.jwks_fetches);
        ok = check_failed == 0;
        fprintf(stderr, "child: %d passed, %d failed\n", check_passed, check_failed);
        _exit(ok ? 0 : 1);
    }
    CHECK(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the forked child's checks failed (status %d)", status);
    /* The parent keeps working: its thread is there, and it follows the rotation the child caused. */
    CHECK(threads_now() == before + 1, "parent: %d threads after the child", threads_now());
    t = wait_for(v, ctx, r1, JWTK_OK, COOLDOWN + 2);
    CHECK(t >= 0, "parent: r1 did not verify after the rotation back");

    /* Stale keys: 1 s freshness, then the server fails (500, then hangs); known keys keep verifying. */
    serve("/stale", mint_rsa_jwks(), "\"headers\":{\"Cache-Control\":\"max-age=1\"}");
    jwtk_keystore_new(&ks2);
    v2 = pull_verifier(ks2, "/stale", "\"refresh_min\":1,\"refresh_max\":1");
    jwtk_keystore_start(ks2);
    CHECK(wait_for(v2, ctx, r1, JWTK_OK, 5) >= 0, "stale: first fetch");
    serve("/stale", "{}", "\"status\":500");
    sleep_s(2.5);
    CHECK_STATUS(jwtk_verify(v2, ctx, r1.ptr, r1.len, 0, NULL), JWTK_OK, "stale keys verify while the server fails");
    s = stats_of(v2);
    CHECK(s.jwks_fetch_failures >= 1 && s.stale_served >= 1, "stale: %llu failures, %llu stale served",
          (unsigned long long)s.jwks_fetch_failures, (unsigned long long)s.stale_served);
    serve("/stale", mint_rsa_jwks(), "\"mode\":\"hang\",\"seconds\":3");
    sleep_s(1.5);   /* a fetch is hanging now */
    {
        double start = now_s(), worst = 0;
        for (i = 0; i < 200; i++) {
            double one = now_s();
            if (jwtk_verify(v2, ctx, r1.ptr, r1.len, 0, NULL) != JWTK_OK) break;
            if (now_s() - one > worst) worst = now_s() - one;
        }
        CHECK(i == 200, "stale keys stopped verifying during a hanging fetch at %d", i);
        printf("during a hanging fetch: 200 verifications in %.1f ms, slowest %.3f ms\n", (now_s() - start) * 1e3,
               worst * 1e3);
        CHECK(worst < 0.05, "a verification waited on the network: %.3f s", worst);
    }
    /* Stats: the fields a gateway exports. */
    h = mint_token("HS256", "{\"alg\":\"HS256\",\"kid\":\"h1\"}", CLAIMS);
    jwtk_verify(v2, ctx, h.ptr, h.len, 0, NULL);
    s = stats_of(v2);
    CHECK(s.allowed >= 200 && s.denied >= 1 && s.denied_by_status[JWTK_UNKNOWN_KID] >= 1, "verdicts: %llu allowed, %llu denied",
          (unsigned long long)s.allowed, (unsigned long long)s.denied);
    CHECK(s.keys_loaded == 1 && s.remote_sources == 1 && s.remote_sources_without_keys == 0 && s.jwks_loads == 0,
          "keys: %llu loaded", (unsigned long long)s.keys_loaded);
    CHECK(s.last_success_unix > 1700000000 && s.last_attempt_unix >= s.last_success_unix, "times: %lld %lld",
          (long long)s.last_success_unix, (long long)s.last_attempt_unix);
    /* A 0.1.0 caller's smaller struct: filled up to its size, nothing past it. */
    {
        unsigned char raw[sizeof(jwtk_stats) + 8];
        jwtk_stats *old = (jwtk_stats *)raw;
        memset(raw, 0xAB, sizeof raw);
        old->struct_size = 384;
        CHECK_STATUS(jwtk_stats_get(v2, old), JWTK_OK, "0.1.0 struct_size");
        CHECK(raw[384] == 0xAB && old->allowed >= 200, "wrote past a 0.1.0 struct_size");
        old->struct_size = 383;
        CHECK_STATUS(jwtk_stats_get(v2, old), JWTK_E_STRUCT_SIZE, "struct_size below 0.1.0");
        /* A caller from before the discovery counters were appended: they are not written. */
        memset(raw, 0xAB, sizeof raw);
        old->struct_size = (uint32_t)offsetof(jwtk_stats, discovery_fetches);
        CHECK_STATUS(jwtk_stats_get(v2, old), JWTK_OK, "struct_size before discovery_fetches");
        CHECK(raw[offsetof(jwtk_stats, discovery_fetches)] == 0xAB, "wrote discovery_fetches past struct_size");
    }
    /* ETag: answers 304, counted, and the keys stay. */
    serve("/stale", mint_rsa_jwks(), "\"etag\":\"\\\"v1\\\"\",\"headers\":{\"Cache-Control\":\"max-age=1\"}");
    sleep_s(4.5);
    s = stats_of(v2);
    CHECK(s.jwks_not_modified >= 1, "not modified: %llu", (unsigned long long)s.jwks_not_modified);
    CHECK_STATUS(jwtk_verify(v2, ctx, r1.ptr, r1.len, 0, NULL), JWTK_OK, "after 304");

    preset_mirror(ctx);
    discovery(ctx);

    jwtk_verifier_free(v);
    jwtk_verifier_free(v2);
    jwtk_keystore_free(ks);
    jwtk_keystore_free(ks2);
    CHECK(threads_now() == before, "free stops the refresher threads: %d", threads_now());
    stop_on_time(before);
    jwtk_ctx_free(ctx);
    mint_free(r1);
    mint_free(r2);
    mint_free(h);
    mint_cleanup();
    fclose(server_in);   /* the server exits when its stdin closes */
    waitpid(server_pid, NULL, 0);
    fclose(server_out);
    printf("pull-tests: %d passed, %d failed\n", check_passed, check_failed);
    return check_failed == 0 ? 0 : 1;
}
