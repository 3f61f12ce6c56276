/* HS256 signing for the size sweep's generated tokens (one-shot HMAC: setup only, never timed). */
#include "cbench.h"
#include <openssl/evp.h>
#include <openssl/hmac.h>

int cb_hs256_sign(const unsigned char *key, size_t key_len, const char *input, size_t input_len,
                  unsigned char out[32]) {
    unsigned int len = 0;
    return HMAC(EVP_sha256(), key, (int)key_len, (const unsigned char *)input, input_len, out, &len) != NULL
        && len == 32;
}
