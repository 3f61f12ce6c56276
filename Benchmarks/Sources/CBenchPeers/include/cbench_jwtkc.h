#ifndef CBENCH_JWTKC_H
#define CBENCH_JWTKC_H
#include <stddef.h>
#include <stdint.h>

/* jwtk-c: jwt-kernel through its C library, as a C gateway calls it. The shipped libjwtk.so.0
 * (make install) is loaded with dlopen, like LuaJIT's ffi.load or a plugin loader, and
 * jwtk_verify runs in a loop written in C (jwtk_c_driver.c). */

/* Loads the library at `path` once per process. 1 on success; otherwise 0 with dlerror()'s text,
 * or why the library is not usable, in err. */
int cb_jwtkc_load(const char *path, char *err, size_t err_len);

/* One keystore (the JWKS/JWK document, for any issuer), one verifier (config JSON) and one
 * jwtk_ctx, with the token copied. NULL with the status name in err if a step fails. A handle is
 * used by one thread at a time (its jwtk_ctx). */
typedef struct cb_jwtkc cb_jwtkc;
cb_jwtkc *cb_jwtkc_new(const char *jwks, size_t jwks_len, const char *config, size_t config_len,
                       const char *token, size_t token_len, int64_t now, char *err, size_t err_len);
/* n calls of jwtk_verify (with a jwtk_claims out, as a gateway reads the claims); returns how many
 * were JWTK_OK. */
long cb_jwtkc_verify_n(cb_jwtkc *b, long n);
/* The same with `out` NULL: the verdict only (a gateway that exports no claim), nothing filled. */
long cb_jwtkc_verdict_n(cb_jwtkc *b, long n);
void cb_jwtkc_free(cb_jwtkc *b);

#endif
