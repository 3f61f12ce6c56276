/* Token minting for the C tests (see mint.h). Test code: errors abort. */
#include "mint.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char hmac_secret[32] = "0123456789abcdef0123456789abcdef";
static EVP_PKEY *rsa1, *rsa2;
static char *hmac_jwks, *rsa1_jwks, *rsa2_jwks;

static void die(const char *what) {
    fprintf(stderr, "mint: %s failed\n", what);
    abort();
}

char *mint_b64url(const unsigned char *bytes, size_t n) {
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    char *out = malloc(n / 3 * 4 + 5);
    size_t o = 0, i = 0;
    if (!out) die("malloc");
    for (; i + 3 <= n; i += 3) {
        unsigned v = (unsigned)bytes[i] << 16 | (unsigned)bytes[i + 1] << 8 | bytes[i + 2];
        out[o++] = abc[v >> 18 & 63]; out[o++] = abc[v >> 12 & 63];
        out[o++] = abc[v >> 6 & 63];  out[o++] = abc[v & 63];
    }
    if (n - i == 1) {
        unsigned v = (unsigned)bytes[i] << 16;
        out[o++] = abc[v >> 18 & 63]; out[o++] = abc[v >> 12 & 63];
    } else if (n - i == 2) {
        unsigned v = (unsigned)bytes[i] << 16 | (unsigned)bytes[i + 1] << 8;
        out[o++] = abc[v >> 18 & 63]; out[o++] = abc[v >> 12 & 63]; out[o++] = abc[v >> 6 & 63];
    }
    out[o] = 0;
    return out;
}

static char *bn_b64url(const EVP_PKEY *key, const char *param) {
    BIGNUM *bn = NULL;
    unsigned char buf[512];
    int n;
    char *out;
    if (!EVP_PKEY_get_bn_param(key, param, &bn)) die("EVP_PKEY_get_bn_param");
    n = BN_bn2bin(bn, buf);
    BN_free(bn);
    out = mint_b64url(buf, (size_t)n);
    return out;
}

static char *rsa_jwks(const EVP_PKEY *key, const char *kid) {
    char *n = bn_b64url(key, OSSL_PKEY_PARAM_RSA_N), *e = bn_b64url(key, OSSL_PKEY_PARAM_RSA_E);
    size_t size = strlen(n) + strlen(e) + 128;
    char *out = malloc(size);
    if (!out) die("malloc");
    snprintf(out, size, "{\"keys\":[{\"kty\":\"RSA\",\"kid\":\"%s\",\"alg\":\"RS256\",\"n\":\"%s\",\"e\":\"%s\"}]}", kid, n, e);
    free(n);
    free(e);
    return out;
}

void mint_init(void) {
    char *k = mint_b64url(hmac_secret, sizeof hmac_secret);
    size_t size = strlen(k) + 96;
    hmac_jwks = malloc(size);
    if (!hmac_jwks) die("malloc");
    snprintf(hmac_jwks, size, "{\"keys\":[{\"kty\":\"oct\",\"kid\":\"h1\",\"alg\":\"HS256\",\"k\":\"%s\"}]}", k);
    free(k);
    rsa1 = EVP_RSA_gen(2048);
    rsa2 = EVP_RSA_gen(2048);
    if (!rsa1 || !rsa2) die("EVP_RSA_gen");
    rsa1_jwks = rsa_jwks(rsa1, "r1");
    rsa2_jwks = rsa_jwks(rsa2, "r2");
}

void mint_cleanup(void) {
    EVP_PKEY_free(rsa1);
    EVP_PKEY_free(rsa2);
    free(hmac_jwks);
    free(rsa1_jwks);
    free(rsa2_jwks);
}

/* The RSA key as Google's {kid: PEM} map; `prefix` (JSON text) goes before -----BEGIN. */
char *mint_rsa_pem_map(const char *kid, const char *prefix) {
    BIO *bio = BIO_new(BIO_s_mem());
    char *pem, *out;
    long n, i;
    size_t o, size;
    if (!bio || PEM_write_bio_PUBKEY(bio, rsa1) != 1) die("PEM_write_bio_PUBKEY");
    n = BIO_get_mem_data(bio, &pem);
    size = 2 * (size_t)n + strlen(kid) + strlen(prefix) + 16;
    out = malloc(size);
    if (!out) die("malloc");
    o = (size_t)snprintf(out, size, "{\"%s\":\"%s", kid, prefix);
    for (i = 0; i < n; i++) {   /* PEM is base64 and dashes: only its newlines need escaping */
        if (pem[i] == '\n') {
            out[o++] = '\\';
            out[o++] = 'n';
        } else {
            out[o++] = pem[i];
        }
    }
    snprintf(out + o, size - o, "\"}");
    BIO_free(bio);
    return out;
}

char *mint_rsa_pem(int private_key) {
    BIO *bio = BIO_new(BIO_s_mem());
    char *pem, *out;
    long n;
    if (!bio || (private_key ? PEM_write_bio_PrivateKey(bio, rsa1, NULL, NULL, 0, NULL, NULL)
                             : PEM_write_bio_PUBKEY(bio, rsa1)) != 1) die("PEM_write_bio");
    n = BIO_get_mem_data(bio, &pem);
    out = malloc((size_t)n + 1);
    if (!out) die("malloc");
    memcpy(out, pem, (size_t)n);
    out[n] = 0;
    BIO_free(bio);
    return out;
}

const char *mint_hmac_jwks(void) { return hmac_jwks; }
const char *mint_rsa_jwks(void) { return rsa1_jwks; }
const char *mint_rsa2_jwks(void) { return rsa2_jwks; }

static minted assemble(const char *signing_input, const unsigned char *sig, size_t sig_len) {
    char *s = mint_b64url(sig, sig_len);
    size_t a = strlen(signing_input), b = strlen(s);
    minted m;
    m.len = a + 1 + b;
    m.ptr = malloc(m.len);
    if (!m.ptr) die("malloc");
    memcpy(m.ptr, signing_input, a);
    m.ptr[a] = '.';
    memcpy(m.ptr + a + 1, s, b);
    free(s);
    return m;
}

static char *signing_input(const char *header_json, const char *claims_json) {
    char *h = mint_b64url((const unsigned char *)header_json, strlen(header_json));
    char *c = mint_b64url((const unsigned char *)claims_json, strlen(claims_json));
    size_t size = strlen(h) + strlen(c) + 2;
    char *out = malloc(size);
    if (!out) die("malloc");
    snprintf(out, size, "%s.%s", h, c);
    free(h);
    free(c);
    return out;
}

static minted sign_rsa(EVP_PKEY *key, const char *header_json, const char *claims_json) {
    char *input = signing_input(header_json, claims_json);
    unsigned char sig[512];
    size_t sig_len = sizeof sig;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    minted m;
    if (!md || EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, key) != 1 ||
        EVP_DigestSign(md, sig, &sig_len, (const unsigned char *)input, strlen(input)) != 1) die("EVP_DigestSign");
    EVP_MD_CTX_free(md);
    m = assemble(input, sig, sig_len);
    free(input);
    return m;
}

minted mint_token_hs256_key(const unsigned char *key, size_t key_len, const char *header_json, const char *claims_json) {
    char *input = signing_input(header_json, claims_json);
    unsigned char mac[32];
    unsigned mac_len = sizeof mac;
    minted m;
    if (!HMAC(EVP_sha256(), key, (int)key_len, (const unsigned char *)input, strlen(input), mac, &mac_len)) die("HMAC");
    m = assemble(input, mac, mac_len);
    free(input);
    return m;
}

minted mint_token(const char *alg, const char *header_json, const char *claims_json) {
    if (strcmp(alg, "RS256") == 0) return sign_rsa(rsa1, header_json, claims_json);
    if (strcmp(alg, "HS256") == 0) {
        char *input = signing_input(header_json, claims_json);
        unsigned char mac[32];
        unsigned mac_len = sizeof mac;
        minted m;
        if (!HMAC(EVP_sha256(), hmac_secret, sizeof hmac_secret, (const unsigned char *)input, strlen(input), mac, &mac_len))
            die("HMAC");
        m = assemble(input, mac, mac_len);
        free(input);
        return m;
    }
    {
        char *input = signing_input(header_json, claims_json);
        minted m = assemble(input, (const unsigned char *)"", 0);
        free(input);
        return m;
    }
}

minted mint_token_rsa2(const char *header_json, const char *claims_json) { return sign_rsa(rsa2, header_json, claims_json); }

void mint_free(minted m) { free(m.ptr); }
