#include "jkernel_simd.h"

#if defined(__x86_64__)
#include <immintrin.h>

/* Per character, two nibble lookups classify it (W. Mula and D. Lemire, "Faster Base64 Encoding
   and Decoding Using AVX2 Instructions", 2018, adapted to the URL-safe alphabet): the high
   nibble picks a group of the ASCII table (0x2_, 0x3_, 0x4_/0x6_, 0x5_, 0x7_, everything else)
   as one bit, the low nibble's table marks the groups in which that low nibble is NOT in the
   alphabet, and a non-zero AND flags the character. Bytes >= 0x80 have a high nibble of 8-F,
   whose group no low nibble is valid in. The 6-bit value is the character plus an offset that
   depends only on the high nibble, except for '_' (0x5F), which shares 0x5_ with 'P'-'Z' and
   gets its own correction. Four 6-bit values are then packed into 24 bits with two
   multiply-adds and a byte shuffle. Invalid bytes only raise the flag.

   Groups (bit: high nibbles, valid low nibbles): 0: 2 {D} '-'; 1: 3 {0-9}; 2: 4 and 6 {1-F};
   3: 5 {0-A, F} 'P'-'Z' and '_'; 4: 7 {0-A}; 5: 0, 1, 8-F {}. */
#define JK_LUT_HI 0x20, 0x20, 0x01, 0x02, 0x04, 0x08, 0x04, 0x10, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20
#define JK_LUT_LO 0x25, 0x21, 0x21, 0x21, 0x21, 0x21, 0x21, 0x21, 0x21, 0x21, 0x23, 0x3B, 0x3B, 0x3A, 0x3B, 0x33
/* Offsets by high nibble: '-' +17, '0' +4, 'A'/'P' -65, 'a'/'p' -71 (the rest are invalid anyway). */
#define JK_LUT_ROLL 0, 0, 17, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0

__attribute__((target("avx2")))
static size_t decode_avx2(const uint8_t *src, size_t n, uint8_t *dst, int *invalid) {
    const __m256i pack1 = _mm256_set1_epi32(0x01400140), pack2 = _mm256_set1_epi32(0x00011000);
    const __m256i order = _mm256_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1,
                                           2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7);
    const __m256i lut_hi = _mm256_setr_epi8(JK_LUT_HI, JK_LUT_HI), lut_lo = _mm256_setr_epi8(JK_LUT_LO, JK_LUT_LO);
    const __m256i lut_roll = _mm256_setr_epi8(JK_LUT_ROLL, JK_LUT_ROLL);
    const __m256i nibble = _mm256_set1_epi8(0x0F), underscore = _mm256_set1_epi8(0x5F);
    const __m256i underscore_fix = _mm256_set1_epi8(33); /* -65 + 33 = -32: '_' (0x5F) -> 63 */
    __m256i bad = _mm256_setzero_si256();
    size_t i = 0, o = 0;
    /* 44 left means at least 33 output bytes left: the 32-byte store stays inside the output. */
    while (n - i >= 44) {
        __m256i c = _mm256_loadu_si256((const __m256i *)(src + i));
        __m256i hi = _mm256_and_si256(_mm256_srli_epi32(c, 4), nibble);
        __m256i lo = _mm256_and_si256(c, nibble);
        bad = _mm256_or_si256(bad, _mm256_and_si256(_mm256_shuffle_epi8(lut_lo, lo), _mm256_shuffle_epi8(lut_hi, hi)));
        __m256i offset = _mm256_add_epi8(_mm256_shuffle_epi8(lut_roll, hi),
                                         _mm256_and_si256(_mm256_cmpeq_epi8(c, underscore), underscore_fix));
        __m256i v = _mm256_add_epi8(c, offset);
        __m256i packed = _mm256_madd_epi16(_mm256_maddubs_epi16(v, pack1), pack2);
        packed = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(packed, order), lanes);
        _mm256_storeu_si256((__m256i *)(dst + o), packed);
        i += 32;
        o += 24;
    }
    *invalid |= !_mm256_testz_si256(bad, bad);
    return i;
}

__attribute__((target("ssse3")))
static size_t decode_ssse3(const uint8_t *src, size_t n, uint8_t *dst, int *invalid) {
    const __m128i pack1 = _mm_set1_epi32(0x01400140), pack2 = _mm_set1_epi32(0x00011000);
    const __m128i order = _mm_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
    const __m128i lut_hi = _mm_setr_epi8(JK_LUT_HI), lut_lo = _mm_setr_epi8(JK_LUT_LO);
    const __m128i lut_roll = _mm_setr_epi8(JK_LUT_ROLL);
    const __m128i nibble = _mm_set1_epi8(0x0F), underscore = _mm_set1_epi8(0x5F), underscore_fix = _mm_set1_epi8(33);
    __m128i bad = _mm_setzero_si128();
    size_t i = 0, o = 0;
    /* 24 left means at least 18 output bytes left: the 16-byte store stays inside the output. */
    while (n - i >= 24) {
        __m128i c = _mm_loadu_si128((const __m128i *)(src + i));
        __m128i hi = _mm_and_si128(_mm_srli_epi32(c, 4), nibble);
        __m128i lo = _mm_and_si128(c, nibble);
        bad = _mm_or_si128(bad, _mm_and_si128(_mm_shuffle_epi8(lut_lo, lo), _mm_shuffle_epi8(lut_hi, hi)));
        __m128i offset = _mm_add_epi8(_mm_shuffle_epi8(lut_roll, hi),
                                      _mm_and_si128(_mm_cmpeq_epi8(c, underscore), underscore_fix));
        __m128i v = _mm_add_epi8(c, offset);
        __m128i packed = _mm_shuffle_epi8(_mm_madd_epi16(_mm_maddubs_epi16(v, pack1), pack2), order);
        _mm_storeu_si128((__m128i *)(dst + o), packed);
        i += 16;
        o += 12;
    }
    /* The flags sit in bits 0-5 (no SSE4.1 PTEST here): any byte not equal to zero is a bad character. */
    *invalid |= _mm_movemask_epi8(_mm_cmpeq_epi8(bad, _mm_setzero_si128())) != 0xFFFF;
    return i;
}

int jkernel_simd_level(void) {
    /* __builtin_cpu_supports reads the CPU model the runtime filled in at load (a cached CPUID). */
    if (__builtin_cpu_supports("avx2")) return 2;
    if (__builtin_cpu_supports("ssse3")) return 1;
    return 0;
}

size_t jkernel_base64url_decode_blocks(const uint8_t *src, size_t n, uint8_t *dst, int *invalid) {
    if (__builtin_cpu_supports("avx2")) {
        /* The 16-byte loop takes over where the 32-byte one stops, leaving under 24 characters to the scalar code. */
        size_t i = decode_avx2(src, n, dst, invalid);
        return i + decode_ssse3(src + i, n - i, dst + i / 4 * 3, invalid);
    }
    if (__builtin_cpu_supports("ssse3")) return decode_ssse3(src, n, dst, invalid);
    return 0;
}

void jkernel_base64url_decode_blocks3(const uint8_t *const src[3], const size_t n[3], uint8_t *const dst[3],
                                      size_t consumed[3], int *invalid) {
    if (__builtin_cpu_supports("avx2")) {
        for (int k = 0; k < 3; k++) {
            size_t i = decode_avx2(src[k], n[k], dst[k], invalid);
            consumed[k] = i + decode_ssse3(src[k] + i, n[k] - i, dst[k] + i / 4 * 3, invalid);
        }
    } else if (__builtin_cpu_supports("ssse3")) {
        for (int k = 0; k < 3; k++) consumed[k] = decode_ssse3(src[k], n[k], dst[k], invalid);
    } else {
        consumed[0] = consumed[1] = consumed[2] = 0;
    }
}

#else

int jkernel_simd_level(void) { return 0; }

size_t jkernel_base64url_decode_blocks(const uint8_t *src, size_t n, uint8_t *dst, int *invalid) {
    (void)src; (void)n; (void)dst; (void)invalid;
    return 0;
}

void jkernel_base64url_decode_blocks3(const uint8_t *const src[3], const size_t n[3], uint8_t *const dst[3],
                                      size_t consumed[3], int *invalid) {
    (void)src; (void)n; (void)dst; (void)invalid;
    consumed[0] = consumed[1] = consumed[2] = 0;
}

#endif
