/* Test tokens and keys, made at run time with OpenSSL: HS256 with a fixed secret, RS256 with a
 * fresh RSA-2048 key. Every token comes back in its own malloc'd buffer of exactly its length,
 * without a NUL terminator, so ASan and valgrind catch any read past the end. */
#ifndef JWTK_MINT_H
#define JWTK_MINT_H
#include <stddef.h>

typedef struct minted { char *ptr; size_t len; } minted;

/* base64url (no padding) of n bytes into a new NUL-terminated string. */
char *mint_b64url(const unsigned char *bytes, size_t n);
/* header and claims JSON, signed with alg "HS256" (secret below), "RS256" (the RSA key) or "none". */
minted mint_token(const char *alg, const char *header_json, const char *claims_json);
/* header and claims JSON, HS256 with the secret `key` (key_len bytes): short secrets included. */
minted mint_token_hs256_key(const unsigned char *key, size_t key_len, const char *header_json, const char *claims_json);
/* Frees a token from mint_token or mint_token_rsa2. */
void mint_free(minted m);
/* Key sets: the HMAC secret as a JWKS (kid "h1", alg HS256); the RSA public key (kid "r1"). */
const char *mint_hmac_jwks(void);
const char *mint_rsa_jwks(void);
/* A second RSA key (kid "r2"), for issuer isolation and rotation tests. */
minted mint_token_rsa2(const char *header_json, const char *claims_json);
const char *mint_rsa2_jwks(void);
/* The RSA key (r1) as a {kid: PEM} map whose value starts with `prefix` (JSON text); free() it. */
char *mint_rsa_pem_map(const char *kid, const char *prefix);
/* The RSA key (r1) as a PEM file's text: its SubjectPublicKeyInfo, or (private_key) its PKCS#8 private
 * key; free() it. */
char *mint_rsa_pem(int private_key);
void mint_init(void);
void mint_cleanup(void);
#endif
