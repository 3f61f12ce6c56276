/* verify_token JWKS_FILE TOKEN_FILE ISSUER AUDIENCE NOW: what a C client of libjwtk-dev writes, compiled in the
 * clean system with `pkg-config --cflags --libs jwtk`. Prints the status name; exits 0 only for a valid token. */
#include <jwtk.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(2); }
    static char buf[1 << 16];
    *len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    while (*len && (buf[*len - 1] == '\n' || buf[*len - 1] == '\r')) (*len)--;
    char *copy = malloc(*len + 1);
    memcpy(copy, buf, *len);
    copy[*len] = 0;
    return copy;
}

int main(int argc, char **argv) {
    if (argc != 6) { fprintf(stderr, "usage: verify_token JWKS TOKEN ISSUER AUDIENCE NOW\n"); return 2; }
    if (jwtk_version_number() != JWTK_VERSION_NUMBER) { fprintf(stderr, "header and library differ\n"); return 2; }
    size_t jwks_len, token_len;
    char *jwks = slurp(argv[1], &jwks_len), *token = slurp(argv[2], &token_len);
    char config[1024];
    snprintf(config, sizeof config, "{\"issuers\": [\"%s\"], \"audiences\": [\"%s\"]}", argv[3], argv[4]);

    jwtk_keystore *ks; jwtk_verifier *v; jwtk_ctx *ctx;
    if (jwtk_keystore_new(&ks) || jwtk_ctx_new(&ctx)) return 2;
    int rc = jwtk_keystore_load_jwks(ks, NULL, 0, jwks, jwks_len);
    if (rc != JWTK_OK) { fprintf(stderr, "keys: %s\n", jwtk_status_name(rc)); return 2; }
    if ((rc = jwtk_verifier_new(config, strlen(config), ks, &v)) != JWTK_OK) { fprintf(stderr, "config: %s\n", jwtk_status_name(rc)); return 2; }

    jwtk_claims claims;
    memset(&claims, 0, sizeof claims);
    claims.struct_size = sizeof claims;
    rc = jwtk_verify(v, ctx, token, token_len, strtoll(argv[5], NULL, 10), &claims);
    printf("%s libjwtk %s\n", jwtk_status_name(rc), jwtk_version());
    jwtk_verifier_free(v);
    jwtk_keystore_free(ks);
    jwtk_ctx_free(ctx);
    return rc == JWTK_OK ? 0 : 1;
}
