#ifndef JKERNEL_SIMD_H
#define JKERNEL_SIMD_H
/* Internal to JWTKernel: the jkernel_ prefix keeps these out of the C library's public jwtk_
   namespace (libjwtk exports only what jwtk.h declares).

   Vectorised inner loops for JWTKernel's hot path, with runtime CPU dispatch
   (AVX2, SSSE3) and no scalar code of their own: each returns how far it got,
   and the Swift caller finishes (and checks the edge cases) with its scalar
   code, so the two paths cannot disagree on what is valid. */
#include <stddef.h>
#include <stdint.h>

/* Decodes whole 4-character base64url (RFC 4648 §5) groups from the start of
   src[0..<n] into dst, stopping early enough that the caller's scalar code
   always handles the last group (trailing-bit checks stay in one place).
   Returns the number of characters consumed (a multiple of 4; 0 without a
   vector unit); dst receives 3 bytes per 4 characters, and up to 8 bytes
   beyond them may be overwritten with scratch (always inside the caller's
   decodedCount(n) bytes). Sets *invalid to 1 if a consumed character is
   outside the URL-safe alphabet (the output is then meaningless). */
size_t jkernel_base64url_decode_blocks(const uint8_t *src, size_t n, uint8_t *dst, int *invalid);

/* Which vector unit the calls above use: 2 AVX2, 1 SSSE3, 0 none. */
int jkernel_simd_level(void);

#endif
