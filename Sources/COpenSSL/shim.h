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
#endif
