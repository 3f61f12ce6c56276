#ifndef JWTK_COPENSSL_SHIM_H
#define JWTK_COPENSSL_SHIM_H
/* The low-level SHA-2 API (deprecated in 3.0, still shipped) hashes into a
   caller-owned struct: no allocation, no provider fetch. See HMACKey.swift. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>
#include <openssl/hmac.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/param_build.h>
#include <openssl/x509.h>
#include <openssl/pem.h>
#include <openssl/err.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

/* Compound macros Swift cannot import, passed through as functions so that no
   OpenSSL constant is ever retyped by hand on the Swift side. */
static inline int jwtk_evp_pkey_public_key_selection(void) { return EVP_PKEY_PUBLIC_KEY; }
static inline const char *jwtk_ossl_pkey_param_rsa_n(void) { return OSSL_PKEY_PARAM_RSA_N; }
static inline const char *jwtk_ossl_pkey_param_rsa_e(void) { return OSSL_PKEY_PARAM_RSA_E; }
static inline const char *jwtk_ossl_pkey_param_group_name(void) { return OSSL_PKEY_PARAM_GROUP_NAME; }
static inline const char *jwtk_ossl_pkey_param_pub_key(void) { return OSSL_PKEY_PARAM_PUB_KEY; }
static inline unsigned long jwtk_openssl_version_number(void) { return OPENSSL_VERSION_NUMBER; }

/* JWE (decryption keys and primitives). */
static inline int jwtk_evp_pkey_keypair_selection(void) { return EVP_PKEY_KEYPAIR; }
static inline const char *jwtk_ossl_pkey_param_rsa_d(void) { return OSSL_PKEY_PARAM_RSA_D; }
static inline const char *jwtk_ossl_pkey_param_rsa_factor1(void) { return OSSL_PKEY_PARAM_RSA_FACTOR1; }
static inline const char *jwtk_ossl_pkey_param_rsa_factor2(void) { return OSSL_PKEY_PARAM_RSA_FACTOR2; }
static inline const char *jwtk_ossl_pkey_param_rsa_exponent1(void) { return OSSL_PKEY_PARAM_RSA_EXPONENT1; }
static inline const char *jwtk_ossl_pkey_param_rsa_exponent2(void) { return OSSL_PKEY_PARAM_RSA_EXPONENT2; }
static inline const char *jwtk_ossl_pkey_param_rsa_coefficient1(void) { return OSSL_PKEY_PARAM_RSA_COEFFICIENT1; }
static inline const char *jwtk_ossl_pkey_param_priv_key(void) { return OSSL_PKEY_PARAM_PRIV_KEY; }
static inline int jwtk_evp_ctrl_gcm_set_ivlen(void) { return EVP_CTRL_GCM_SET_IVLEN; }
static inline int jwtk_evp_ctrl_gcm_set_tag(void) { return EVP_CTRL_GCM_SET_TAG; }
static inline int jwtk_evp_cipher_ctx_flag_wrap_allow(void) { return EVP_CIPHER_CTX_FLAG_WRAP_ALLOW; }
/* EVP_PKEY_CTX_set0_rsa_oaep_label takes ownership of an OPENSSL_malloc'd label (a macro Swift cannot call). */
static inline int jwtk_set_rsa_oaep_label(EVP_PKEY_CTX *ctx, const unsigned char *label, size_t len) {
    if (len == 0) return 1;
    void *copy = OPENSSL_memdup(label, len);
    if (copy == NULL) return 0;
    if (EVP_PKEY_CTX_set0_rsa_oaep_label(ctx, copy, (int)len) <= 0) { OPENSSL_free(copy); return 0; }
    return 1;
}
#endif
