/* openssl-floor: the least work OpenSSL must do per token, below what a typical caller
 * (openssl-raw) does. Everything that does not depend on the token's signing input is done
 * once in setup and left out of the timed call:
 *   HS256: SHA-256 of header.payload continued from the precomputed ipad state, SHA-256 of
 *          that from the opad state (RFC 2104), then CRYPTO_memcmp. The states are plain
 *          SHA256_CTX structs copied per call, so nothing is allocated or fetched.
 *   RS256, PS256, ES256: SHA-256 of header.payload the same way, then EVP_PKEY_verify on an
 *          EVP_PKEY_CTX initialised once (padding, salt length and digest set in setup).
 * The signature is decoded once (and for ES256 converted to DER once), untimed.
 * EdDSA has no such floor in OpenSSL 3.0: Ed25519 signs the whole message (no prehash), and
 * its only entry point is the EVP_DigestVerify that openssl-raw already times.
 * The EVP_PKEY_CTX carries per-operation state, so a handle must stay on one thread. */
#define OPENSSL_SUPPRESS_DEPRECATED /* SHA256_CTX: the one SHA-256 state that can be copied by value */
#include "cbench.h"
#include <openssl/crypto.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

enum floor_kind { F_HS, F_RS, F_PS, F_ES };

struct cb_floor {
    enum floor_kind kind;
    SHA256_CTX inner, outer; /* HS256: states after the ipad and opad blocks */
    EVP_PKEY *pkey;
    EVP_PKEY_CTX *pctx;
    char *token;
    size_t msg_len; /* header.payload is the token's prefix */
    unsigned char *sig;
    size_t sig_len;
};

static int b64u_val(unsigned char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '-') return 62;
    if (c == '_') return 63;
    return -1;
}

static unsigned char *b64u_decode(const char *s, size_t n, size_t *out_len) {
    unsigned char *out = malloc(n * 3 / 4 + 3);
    size_t o = 0;
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        int v = b64u_val((unsigned char)s[i]);
        if (v < 0) { free(out); return NULL; }
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) { bits -= 8; out[o++] = (unsigned char)(acc >> bits); }
    }
    *out_len = o;
    return out;
}

/* JOSE ECDSA signatures are raw r||s; OpenSSL wants DER. */
static unsigned char *es256_to_der(const unsigned char *rs, size_t len, size_t *out_len) {
    if (len != 64) return NULL;
    ECDSA_SIG *sig = ECDSA_SIG_new();
    ECDSA_SIG_set0(sig, BN_bin2bn(rs, 32, NULL), BN_bin2bn(rs + 32, 32, NULL));
    unsigned char *der = NULL;
    int n = i2d_ECDSA_SIG(sig, &der);
    ECDSA_SIG_free(sig);
    if (n <= 0) return NULL;
    unsigned char *copy = malloc((size_t)n);
    memcpy(copy, der, (size_t)n);
    OPENSSL_free(der);
    *out_len = (size_t)n;
    return copy;
}

static void hmac_states(cb_floor *b, const unsigned char *key, size_t key_len) {
    unsigned char block[SHA256_CBLOCK] = {0}, pad[SHA256_CBLOCK];
    if (key_len > SHA256_CBLOCK) SHA256(key, key_len, block);
    else memcpy(block, key, key_len);
    for (int i = 0; i < SHA256_CBLOCK; i++) pad[i] = block[i] ^ 0x36;
    SHA256_Init(&b->inner);
    SHA256_Update(&b->inner, pad, sizeof pad);
    for (int i = 0; i < SHA256_CBLOCK; i++) pad[i] = block[i] ^ 0x5c;
    SHA256_Init(&b->outer);
    SHA256_Update(&b->outer, pad, sizeof pad);
    OPENSSL_cleanse(block, sizeof block);
    OPENSSL_cleanse(pad, sizeof pad);
}

static int prepare_pkey_ctx(cb_floor *b) {
    b->pctx = EVP_PKEY_CTX_new(b->pkey, NULL);
    if (!b->pctx || EVP_PKEY_verify_init(b->pctx) != 1) return 0;
    if (b->kind == F_RS && EVP_PKEY_CTX_set_rsa_padding(b->pctx, RSA_PKCS1_PADDING) != 1) return 0;
    if (b->kind == F_PS && (EVP_PKEY_CTX_set_rsa_padding(b->pctx, RSA_PKCS1_PSS_PADDING) != 1 ||
                            EVP_PKEY_CTX_set_rsa_pss_saltlen(b->pctx, RSA_PSS_SALTLEN_DIGEST) != 1))
        return 0;
    return EVP_PKEY_CTX_set_signature_md(b->pctx, EVP_sha256()) == 1;
}

int cb_floor_supports(const char *alg) {
    return !strcmp(alg, "HS256") || !strcmp(alg, "RS256") || !strcmp(alg, "PS256") || !strcmp(alg, "ES256");
}

cb_floor *cb_floor_new(const char *alg, const char *token, size_t token_len,
                       const unsigned char *key, size_t key_len) {
    if (!cb_floor_supports(alg)) return NULL;
    cb_floor *b = calloc(1, sizeof *b);
    b->kind = !strcmp(alg, "HS256") ? F_HS : !strcmp(alg, "RS256") ? F_RS : !strcmp(alg, "PS256") ? F_PS : F_ES;

    b->token = malloc(token_len);
    memcpy(b->token, token, token_len);
    const char *dot = NULL;
    for (size_t i = token_len; i > 0; i--)
        if (b->token[i - 1] == '.') { dot = b->token + i - 1; break; }
    if (!dot) goto fail;
    b->msg_len = (size_t)(dot - b->token);
    b->sig = b64u_decode(dot + 1, token_len - b->msg_len - 1, &b->sig_len);
    if (!b->sig) goto fail;
    if (b->kind == F_ES) {
        size_t der_len = 0;
        unsigned char *der = es256_to_der(b->sig, b->sig_len, &der_len);
        free(b->sig);
        b->sig = der;
        b->sig_len = der_len;
        if (!der) goto fail;
    }

    if (b->kind == F_HS) {
        hmac_states(b, key, key_len);
    } else {
        BIO *bio = BIO_new_mem_buf(key, (int)key_len);
        b->pkey = PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL);
        BIO_free(bio);
        if (!b->pkey || !prepare_pkey_ctx(b)) goto fail;
    }
    return b;
fail:
    cb_floor_free(b);
    return NULL;
}

int cb_floor_verify(cb_floor *b) {
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256_CTX ctx = b->kind == F_HS ? b->inner : (SHA256_CTX){0};
    if (b->kind != F_HS) SHA256_Init(&ctx);
    SHA256_Update(&ctx, b->token, b->msg_len);
    SHA256_Final(digest, &ctx);
    if (b->kind == F_HS) {
        unsigned char mac[SHA256_DIGEST_LENGTH];
        ctx = b->outer;
        SHA256_Update(&ctx, digest, sizeof digest);
        SHA256_Final(mac, &ctx);
        return b->sig_len == sizeof mac && CRYPTO_memcmp(mac, b->sig, sizeof mac) == 0;
    }
    return EVP_PKEY_verify(b->pctx, b->sig, b->sig_len, digest, sizeof digest) == 1;
}

void cb_floor_free(cb_floor *b) {
    if (!b) return;
    EVP_PKEY_CTX_free(b->pctx);
    EVP_PKEY_free(b->pkey);
    OPENSSL_cleanse(&b->inner, sizeof b->inner);
    OPENSSL_cleanse(&b->outer, sizeof b->outer);
    free(b->sig);
    free(b->token);
    free(b);
}
