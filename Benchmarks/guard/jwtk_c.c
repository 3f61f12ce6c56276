/* The C API's cells for callgrind (Benchmarks/guard.py): N calls of jwtk_verify through the jwtk-c cells' own
 * driver (Benchmarks/Sources/CBenchPeers/jwtk_c_driver.c, compiled in beside this file), so the loop measured
 * here is the benchmark's, on the shipped libjwtk.so.0 loaded with dlopen.
 *   jwtk_c LIBJWTK JWKS-FILE CONFIG-JSON TOKEN-FILE NOW N
 * Exits 1 unless every call returned JWTK_OK. */
#include "cbench_jwtkc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(2); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *b = malloc((size_t)n + 1);
    if (fread(b, 1, (size_t)n, f) != (size_t)n) { perror(path); exit(2); }
    fclose(f);
    while (n > 0 && (b[n - 1] == '\n' || b[n - 1] == '\r' || b[n - 1] == ' ')) n--;  /* the token file's newline */
    b[n] = 0;
    *len = (size_t)n;
    return b;
}

int main(int argc, char **argv) {
    if (argc != 7) { fprintf(stderr, "usage: jwtk_c LIBJWTK JWKS-FILE CONFIG-JSON TOKEN-FILE NOW N\n"); return 2; }
    char err[512];
    if (!cb_jwtkc_load(argv[1], err, sizeof err)) { fprintf(stderr, "jwtk_c: %s\n", err); return 1; }
    size_t jwks_len, token_len;
    char *jwks = slurp(argv[2], &jwks_len), *token = slurp(argv[4], &token_len);
    cb_jwtkc *b = cb_jwtkc_new(jwks, jwks_len, argv[3], strlen(argv[3]), token, token_len, atoll(argv[5]), err,
                               sizeof err);
    if (!b) { fprintf(stderr, "jwtk_c: %s\n", err); return 1; }
    long n = atol(argv[6]), ok = cb_jwtkc_verify_n(b, n);
    cb_jwtkc_free(b);
    free(jwks);
    free(token);
    if (ok != n) { fprintf(stderr, "jwtk_c: FAILED %ld/%ld\n", ok, n); return 1; }
    return 0;
}
