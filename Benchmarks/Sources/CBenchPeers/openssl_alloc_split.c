/* Tells OpenSSL's own allocations apart from everyone else's: OpenSSL 3 routes every
 * OPENSSL_malloc/zalloc/realloc/free through hooks that CRYPTO_set_mem_functions installs,
 * and these hooks mark the allocation as OpenSSL's before handing it to the (counted)
 * malloc. OpenSSL accepts hooks only before its first allocation, so they are installed
 * from an ELF constructor of the executable, which runs before main and before any Swift
 * code can touch libcrypto. The zero-allocation guard then checks jwt-kernel's share,
 * total minus OpenSSL's, for algorithms where OpenSSL itself allocates per call (an
 * EVP_PKEY_CTX per verification, ECDSA_SIG and BIGNUMs for ES256). */
#include "alloc_internal.h"
#include "cbench.h"
#include <openssl/crypto.h>
#include <stdlib.h>

static int installed;

static void *hook_malloc(size_t n, const char *file, int line) {
    (void)file, (void)line;
    cb_alloc_note_openssl();
    return malloc(n);
}

static void *hook_realloc(void *p, size_t n, const char *file, int line) {
    (void)file, (void)line;
    cb_alloc_note_openssl();
    return realloc(p, n);
}

static void hook_free(void *p, const char *file, int line) {
    (void)file, (void)line;
    free(p);
}

__attribute__((constructor)) static void install_hooks(void) {
    installed = CRYPTO_set_mem_functions(hook_malloc, hook_realloc, hook_free) == 1;
}

int cb_alloc_openssl_apart(void) { return installed; }
