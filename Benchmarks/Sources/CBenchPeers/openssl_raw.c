/* openssl-raw, a typical caller of OpenSSL: one-shot EVP_DigestVerify with the key parsed
 * once and SHA-256 fetched once (the OpenSSL 3 recommendation). The EVP_MD_CTX is created
 * per call, as a typical caller would (openssl_floor.c is the least-work variant); base64url and the ECDSA r||s -> DER conversion are done in setup, so the
 * timed call is crypto only. HS256 uses the one-shot HMAC() + CRYPTO_memcmp. */
#include "cbench.h"
#include <openssl/crypto.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <stdlib.h>
#include <string.h>

enum kind { K_HS, K_RS, K_PS, K_ES, K_ED };

struct cb_ossl {
    enum kind kind;
    EVP_MD *md;
    EVP_PKEY *pkey;
    unsigned char *secret;
    size_t secret_len;
    const unsigned char *msg;
    size_t msg_len;
    unsigned char *sig;
    size_t sig_len;
    char *token;
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

/* JOSE ECDSA signatures are raw r||s; EVP wants DER. */
static unsigned char *es_to_der(const unsigned char *rs, size_t len, size_t *out_len) {
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

cb_ossl *cb_ossl_new(const char *alg, const char *token, size_t token_len,
                     const unsigned char *key, size_t key_len) {
    cb_ossl *b = calloc(1, sizeof *b);
    if (!strcmp(alg, "HS256")) b->kind = K_HS;
    else if (!strcmp(alg, "RS256")) b->kind = K_RS;
    else if (!strcmp(alg, "PS256")) b->kind = K_PS;
    else if (!strcmp(alg, "ES256")) b->kind = K_ES;
    else if (!strcmp(alg, "EdDSA")) b->kind = K_ED;
    else goto fail;

    b->token = malloc(token_len);
    memcpy(b->token, token, token_len);
    const char *dot = NULL;
    for (size_t i = token_len; i > 0; i--)
        if (b->token[i - 1] == '.') { dot = b->token + i - 1; break; }
    if (!dot) goto fail;
    b->msg = (const unsigned char *)b->token;
    b->msg_len = (size_t)(dot - b->token);
    b->sig = b64u_decode(dot + 1, token_len - b->msg_len - 1, &b->sig_len);
    if (!b->sig) goto fail;

    if (b->kind == K_ES) {
        size_t der_len;
        unsigned char *der = es_to_der(b->sig, b->sig_len, &der_len);
        free(b->sig);
        b->sig = der;
        b->sig_len = der_len;
        if (!der) goto fail;
    }
    if (b->kind != K_ED) b->md = EVP_MD_fetch(NULL, "SHA256", NULL);
    if (b->kind == K_HS) {
        b->secret = malloc(key_len);
        memcpy(b->secret, key, key_len);
        b->secret_len = key_len;
    } else {
        BIO *bio = BIO_new_mem_buf(key, (int)key_len);
        b->pkey = PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL);
        BIO_free(bio);
        if (!b->pkey) goto fail;
    }
    return b;
fail:
    cb_ossl_free(b);
    return NULL;
}

int cb_ossl_verify(const cb_ossl *b) {
    if (b->kind == K_HS) {
        unsigned char mac[EVP_MAX_MD_SIZE];
        unsigned int mac_len = 0;
        if (!HMAC(b->md, b->secret, (int)b->secret_len, b->msg, b->msg_len, mac, &mac_len)) return 0;
        return mac_len == b->sig_len && CRYPTO_memcmp(mac, b->sig, mac_len) == 0;
    }
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pctx = NULL;
    int ok = EVP_DigestVerifyInit(ctx, &pctx, b->md, NULL, b->pkey) == 1;
    if (ok && b->kind == K_PS)
        ok = EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1 &&
             EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) == 1;
    ok = ok && EVP_DigestVerify(ctx, b->sig, b->sig_len, b->msg, b->msg_len) == 1;
    EVP_MD_CTX_free(ctx);
    return ok;
}

void cb_ossl_free(cb_ossl *b) {
    if (!b) return;
    EVP_MD_free(b->md);
    EVP_PKEY_free(b->pkey);
    free(b->secret);
    free(b->sig);
    free(b->token);
    free(b);
}
