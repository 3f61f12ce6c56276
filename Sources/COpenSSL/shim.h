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
#endif
