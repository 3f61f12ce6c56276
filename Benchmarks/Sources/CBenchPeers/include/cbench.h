#ifndef CBENCH_H
#define CBENCH_H
#include <stddef.h>
#include <stdint.h>

/* openssl-raw: a typical caller of OpenSSL. Setup parses the key and decodes the signature once;
 * cb_ossl_verify runs EVP_DigestVerify (one-shot HMAC() for HS256) over "header.payload",
 * with a digest context per call. Returns 1 if valid. */
typedef struct cb_ossl cb_ossl;
cb_ossl *cb_ossl_new(const char *alg, const char *token, size_t token_len,
                     const unsigned char *key, size_t key_len); /* key: PEM, or the HS256 secret */
int cb_ossl_verify(const cb_ossl *b);
void cb_ossl_free(cb_ossl *b);

/* openssl-floor: the least OpenSSL work per token (see openssl_floor.c). HS256, RS256, PS256 and
 * ES256 only; a handle holds an EVP_PKEY_CTX with per-call state, so it stays on one thread. */
int cb_floor_supports(const char *alg);
typedef struct cb_floor cb_floor;
cb_floor *cb_floor_new(const char *alg, const char *token, size_t token_len,
                       const unsigned char *key, size_t key_len); /* key: PEM, or the HS256 secret */
int cb_floor_verify(cb_floor *b);
void cb_floor_free(cb_floor *b);

/* HMAC-SHA256 of input under key into out (setup of generated tokens). Returns 1 on success. */
int cb_hs256_sign(const unsigned char *key, size_t key_len, const char *input, size_t input_len,
                  unsigned char out[32]);

/* libjwt 1.10: what its users get, jwt_decode (PEM parsed per call) + iss/aud/exp checks. */
int cb_libjwt_supports(const char *alg);
typedef struct cb_libjwt cb_libjwt;
cb_libjwt *cb_libjwt_new(const char *token, size_t token_len, const unsigned char *key, size_t key_len,
                         const char *iss, const char *aud, long long now);
int cb_libjwt_verify(const cb_libjwt *b);
void cb_libjwt_free(cb_libjwt *b);

/* Process-wide allocation counter (malloc, calloc, realloc, aligned variants). */
int cb_alloc_counting_works(void);
void cb_alloc_count_begin(void);
uint64_t cb_alloc_count_end(void);

/* The same count for the calling thread only, with the share OpenSSL asked for. */
typedef struct cb_alloc_counts {
    uint64_t total;
    uint64_t openssl; /* of total: allocations made through OpenSSL's allocator */
} cb_alloc_counts;
void cb_alloc_thread_begin(void);
cb_alloc_counts cb_alloc_thread_end(void);
/* 1 if OpenSSL's allocations are told apart (its allocator hooks were installed in time). */
int cb_alloc_openssl_apart(void);

/* Bytes malloc holds for the program (mallinfo2: arena + mmapped), for memory-per-key figures. */
size_t cb_malloc_bytes_in_use(void);

#endif
