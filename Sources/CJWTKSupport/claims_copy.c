/* jkernel_claims_copy (jwtk_support.h): a filled jwtk_claims copied with as few stores as the CPU allows. */
#include <stddef.h>
#include <string.h>
#include "jwtk_support.h"

#if defined(__x86_64__)
#include <immintrin.h>

/* The vector copy below: the first 32 bytes with struct_size put back, then whole 32-byte blocks, then the last 32
   bytes (overlapping the block before when the size is not a multiple of 32). Fields are only ever appended to
   jwtk_claims, so a larger struct keeps this correct; these asserts keep it possible. */
_Static_assert(offsetof(jwtk_claims, struct_size) == 0 && sizeof(((jwtk_claims *)0)->struct_size) == 4,
               "struct_size is the first 4 bytes");
_Static_assert(sizeof(jwtk_claims) >= 64, "at least two 32-byte blocks");

__attribute__((target("avx2")))
static void copy_avx2(jwtk_claims *to, const jwtk_claims *from) {
    const char *s = (const char *)from;
    char *d = (char *)to;
    /* A 4-byte load of the caller's struct_size (just stored by the caller: a load of the same size forwards). */
    uint32_t size = to->struct_size;
    __m256i first = _mm256_insert_epi32(_mm256_loadu_si256((const __m256i *)s), (int)size, 0);
    _mm256_storeu_si256((__m256i *)d, first);
    size_t off = 32;
    for (; off + 32 <= sizeof(jwtk_claims); off += 32)
        _mm256_storeu_si256((__m256i *)(d + off), _mm256_loadu_si256((const __m256i *)(s + off)));
    if (off < sizeof(jwtk_claims)) {
        size_t last = sizeof(jwtk_claims) - 32;
        _mm256_storeu_si256((__m256i *)(d + last), _mm256_loadu_si256((const __m256i *)(s + last)));
    }
}
#endif

void jkernel_claims_copy(jwtk_claims *to, const jwtk_claims *from) {
#if defined(__x86_64__)
    /* __builtin_cpu_supports reads the CPU model filled in at load (a cached CPUID), as CJWTKernelSIMD does. */
    if (__builtin_cpu_supports("avx2")) {
        copy_avx2(to, from);
        return;
    }
#endif
    memcpy((char *)to + sizeof to->struct_size, (const char *)from + sizeof to->struct_size,
           sizeof(jwtk_claims) - sizeof to->struct_size);
}
