/* The jwtk-c cells: jwt-kernel through its C API, called from C, the way a gateway written in C
 * (or LuaJIT's FFI) calls it. The library is the shipped, self-contained libjwtk.so.0 from
 * `make install`, loaded with dlopen so the benchmark builds without it and measures exactly what
 * users load (with its statically linked Swift runtime); calls go through the function pointers
 * dlsym returns, the same indirect call a PLT entry makes.
 * The header comes from the source tree so the types are the ones the library was built against. */
#include "cbench_jwtkc.h"
#include "../../../Sources/CJWTK/include/jwtk.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The subset of the API the cells use, resolved once by cb_jwtkc_load. */
static struct {
    int loaded;
    __typeof__(jwtk_version_number) *version_number;
    __typeof__(jwtk_status_name) *status_name;
    __typeof__(jwtk_keystore_new) *keystore_new;
    __typeof__(jwtk_keystore_load_jwks) *keystore_load_jwks;
    __typeof__(jwtk_keystore_free) *keystore_free;
    __typeof__(jwtk_verifier_new) *verifier_new;
    __typeof__(jwtk_verifier_free) *verifier_free;
    __typeof__(jwtk_ctx_new) *ctx_new;
    __typeof__(jwtk_ctx_free) *ctx_free;
    __typeof__(jwtk_verify) *verify;
} api;

int cb_jwtkc_load(const char *path, char *err, size_t err_len) {
    if (api.loaded) return 1;
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(err, err_len, "%s", dlerror());
        return 0;
    }
#define SYM(field, name)                                                        \
    do {                                                                        \
        *(void **)&api.field = dlsym(lib, #name);                               \
        if (!api.field) {                                                       \
            snprintf(err, err_len, "%s: no symbol %s", path, #name);            \
            return 0;                                                           \
        }                                                                       \
    } while (0)
    SYM(version_number, jwtk_version_number);
    SYM(status_name, jwtk_status_name);
    SYM(keystore_new, jwtk_keystore_new);
    SYM(keystore_load_jwks, jwtk_keystore_load_jwks);
    SYM(keystore_free, jwtk_keystore_free);
    SYM(verifier_new, jwtk_verifier_new);
    SYM(verifier_free, jwtk_verifier_free);
    SYM(ctx_new, jwtk_ctx_new);
    SYM(ctx_free, jwtk_ctx_free);
    SYM(verify, jwtk_verify);
#undef SYM
    /* The header the driver was compiled with must describe the library it loaded (sqlite's rule). */
    if (api.version_number() != JWTK_VERSION_NUMBER) {
        snprintf(err, err_len, "%s is version %d, the header %d", path, api.version_number(), JWTK_VERSION_NUMBER);
        return 0;
    }
    api.loaded = 1;
    return 1;
}

struct cb_jwtkc {
    jwtk_keystore *ks;
    jwtk_verifier *v;
    jwtk_ctx *ctx;
    char *token;
    size_t token_len;
    int64_t now;
};

cb_jwtkc *cb_jwtkc_new(const char *jwks, size_t jwks_len, const char *config, size_t config_len,
                       const char *token, size_t token_len, int64_t now, char *err, size_t err_len) {
    if (!api.loaded) {
        snprintf(err, err_len, "libjwtk not loaded");
        return NULL;
    }
    cb_jwtkc *b = calloc(1, sizeof *b);
    int s;
    const char *step = "jwtk_keystore_new";
    if ((s = api.keystore_new(&b->ks)) != JWTK_OK) goto fail;
    step = "jwtk_keystore_load_jwks";
    if ((s = api.keystore_load_jwks(b->ks, NULL, 0, jwks, jwks_len)) != JWTK_OK) goto fail;
    step = "jwtk_verifier_new";
    if ((s = api.verifier_new(config, config_len, b->ks, &b->v)) != JWTK_OK) goto fail;
    step = "jwtk_ctx_new";
    if ((s = api.ctx_new(&b->ctx)) != JWTK_OK) goto fail;
    b->token = malloc(token_len);
    memcpy(b->token, token, token_len);
    b->token_len = token_len;
    b->now = now;
    return b;
fail:
    snprintf(err, err_len, "%s: %s", step, api.status_name(s));
    cb_jwtkc_free(b);
    return NULL;
}

long cb_jwtkc_verdict_n(cb_jwtkc *b, long n) {
    long ok = 0;
    for (long i = 0; i < n; i++) ok += api.verify(b->v, b->ctx, b->token, b->token_len, b->now, NULL) == JWTK_OK;
    return ok;
}

long cb_jwtkc_verify_n(cb_jwtkc *b, long n) {
    jwtk_claims out;
    long ok = 0;
    for (long i = 0; i < n; i++) {
        out.struct_size = sizeof out;
        ok += api.verify(b->v, b->ctx, b->token, b->token_len, b->now, &out) == JWTK_OK;
    }
    return ok;
}

void cb_jwtkc_free(cb_jwtkc *b) {
    if (!b) return;
    api.ctx_free(b->ctx);
    api.verifier_free(b->v);
    api.keystore_free(b->ks);
    free(b->token);
    free(b);
}
