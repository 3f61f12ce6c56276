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
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Decodes whole 4-character base64url (RFC 4648 §5) groups from the start of
   src[0..<n] into dst, stopping early enough that the caller's scalar code
   always handles the last group (trailing-bit checks stay in one place).
   Returns the number of characters consumed (a multiple of 4; 0 without a
   vector unit); dst receives 3 bytes per 4 characters, and up to 8 bytes
   beyond them may be overwritten with scratch (always inside the caller's
   decodedCount(n) bytes). Sets *invalid to 1 if a consumed character is
   outside the URL-safe alphabet (the output is then meaningless). */
size_t jkernel_base64url_decode_blocks(const uint8_t *src, size_t n, uint8_t *dst, int *invalid);

/* jkernel_base64url_decode_blocks on three inputs at once (a token's payload, header and
   signature), with one CPU dispatch instead of three: consumed[k] receives what the single
   call would return for src[k][0..<n[k]] into dst[k]; *invalid is raised if any consumed
   character of any input is outside the alphabet. A pointer may be anything for n[k] == 0. */
void jkernel_base64url_decode_blocks3(const uint8_t *const src[3], const size_t n[3], uint8_t *const dst[3],
                                      size_t consumed[3], int *invalid);

/* Which of the 16 bytes at p (all 16 must be readable) may end the plain run
   of a JSON string: bit k set when p[k] is a quote, a backslash, a control
   character (< 0x20) or a non-ASCII byte (>= 0x80). Exact for every bit (the
   caller takes the lowest). The string scan calls it once per 16-byte block,
   so for a short member name one call finds the closing quote. Inline, so the
   Swift caller pays no call. SSE2 is part of x86-64, so there is nothing to
   dispatch on; elsewhere a plain byte loop gives the same mask. */
static inline unsigned jkernel_json_special_mask16(const uint8_t *p) {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
    __m128i v = _mm_loadu_si128((const __m128i *)p);
    /* Signed compare: bytes >= 0x80 are negative, so "< 0x20" also catches every non-ASCII byte. */
    __m128i special = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                                   _mm_cmplt_epi8(v, space));
    return (unsigned)_mm_movemask_epi8(special);
#else
    unsigned mask = 0;
    for (unsigned k = 0; k < 16; k++) {
        uint8_t b = p[k];
        if (b == '"' || b == '\\' || b < 0x20 || b >= 0x80) mask |= 1u << k;
    }
    return mask;
#endif
}

/* How many leading bytes of p[0..<n] are plain JSON string content (see
   jkernel_json_special_mask16). Looks at whole 16-byte blocks only, so it
   reads nothing outside p[0..<n]; the result is exact when it stops at a
   special byte, and otherwise fewer than 16 bytes are left. The differential
   tests and FuzzJSON check the block mask through it against a byte loop. */
static inline size_t jkernel_json_plain_prefix(const uint8_t *p, size_t n) {
    size_t i = 0;
    while (n - i >= 16) {
        unsigned mask = jkernel_json_special_mask16(p + i);
        if (mask != 0) return i + (size_t)__builtin_ctz(mask);
        i += 16;
    }
    return i;
}

/* The index of the last byte equal to c in p[0..<n], or n if there is none: 16 bytes at a
   time from the end (SSE2), then byte by byte. Reads nothing outside p[0..<n]. For the last
   dot of a compact JWS, searched from the end so the payload is not scanned. */
static inline size_t jkernel_last_byte(const uint8_t *p, size_t n, uint8_t c) {
    size_t end = n;
#if defined(__SSE2__)
    const __m128i target = _mm_set1_epi8((char)c);
    while (end >= 16) {
        unsigned mask = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + end - 16)), target));
        if (mask != 0) return end - 16 + (size_t)(31 - __builtin_clz(mask));
        end -= 16;
    }
#endif
    while (end > 0) {
        end--;
        if (p[end] == c) return end;
    }
    return n;
}

/* How many leading bytes of p[0..<n] are b64token characters (RFC 6750 §2.1: ALPHA, DIGIT, "-", ".", "_",
   "~", "+", "/"; the "=" padding is the caller's), for the bearer token of an Authorization value. Like
   jkernel_json_plain_prefix: whole 16-byte blocks only, exact when it stops at another byte, otherwise fewer
   than 16 bytes are left for the caller's byte loop, which has the last word. SSE2 signed compares: every range
   is inside 0x00-0x7F, so a byte >= 0x80 (negative) falls in none. A gateway checks every request's header
   with it: ~1 instruction per byte where the byte loop took ~11. */
static inline size_t jkernel_b64token_prefix(const uint8_t *p, size_t n) {
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i lower = _mm_set1_epi8(0x20), a_1 = _mm_set1_epi8('a' - 1), z1 = _mm_set1_epi8('z' + 1);
    const __m128i dash_1 = _mm_set1_epi8('-' - 1), nine1 = _mm_set1_epi8('9' + 1);  /* "-", ".", "/", 0-9 */
    const __m128i plus = _mm_set1_epi8('+'), under = _mm_set1_epi8('_'), tilde = _mm_set1_epi8('~');
    while (n - i >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(p + i));
        __m128i folded = _mm_or_si128(v, lower);
        __m128i alpha = _mm_and_si128(_mm_cmpgt_epi8(folded, a_1), _mm_cmplt_epi8(folded, z1));
        __m128i digits = _mm_and_si128(_mm_cmpgt_epi8(v, dash_1), _mm_cmplt_epi8(v, nine1));
        __m128i singles = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, plus), _mm_cmpeq_epi8(v, under)),
                                       _mm_cmpeq_epi8(v, tilde));
        unsigned other = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(alpha, digits), singles)) ^ 0xFFFFu;
        if (other != 0) return i + (size_t)__builtin_ctz(other);
        i += 16;
    }
#endif
    (void)p;
    return i;
}

/* Which vector unit the calls above use: 2 AVX2, 1 SSSE3, 0 none. */
int jkernel_simd_level(void);

#endif
