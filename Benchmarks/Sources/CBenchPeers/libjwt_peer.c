/* libjwt 1.10 as its users call it: jwt_decode parses the PEM key and the token on every
 * call, and has no claim validation of its own, so iss/aud/exp are checked by hand. */
#include "cbench.h"
#include <jwt.h>
#include <stdlib.h>
#include <string.h>

struct cb_libjwt {
    char *token;
    unsigned char *key;
    int key_len;
    char *iss, *aud;
    long long now;
};

/* 1.10 knows HS/RS/ES only: no PS256, no EdDSA. */
int cb_libjwt_supports(const char *alg) {
    return !strcmp(alg, "HS256") || !strcmp(alg, "RS256") || !strcmp(alg, "ES256");
}

cb_libjwt *cb_libjwt_new(const char *token, size_t token_len, const unsigned char *key, size_t key_len,
                         const char *iss, const char *aud, long long now) {
    cb_libjwt *b = calloc(1, sizeof *b);
    b->token = strndup(token, token_len);
    b->key = malloc(key_len);
    memcpy(b->key, key, key_len);
    b->key_len = (int)key_len;
    b->iss = strdup(iss);
    b->aud = strdup(aud);
    b->now = now;
    return b;
}

int cb_libjwt_verify(const cb_libjwt *b) {
    jwt_t *jwt = NULL;
    if (jwt_decode(&jwt, b->token, b->key, b->key_len) != 0) return 0;
    const char *iss = jwt_get_grant(jwt, "iss");
    const char *aud = jwt_get_grant(jwt, "aud");
    long exp = jwt_get_grant_int(jwt, "exp");
    int ok = iss && !strcmp(iss, b->iss) && aud && !strcmp(aud, b->aud) && exp > b->now;
    jwt_free(jwt);
    return ok;
}

void cb_libjwt_free(cb_libjwt *b) {
    if (!b) return;
    free(b->token);
    free(b->key);
    free(b->iss);
    free(b->aud);
    free(b);
}
