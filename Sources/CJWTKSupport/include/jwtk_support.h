/* Internal helpers of the C library, not installed: relaxed atomic counters and an atomic
 * generation number, as static inline functions so nothing is exported. */
#ifndef JWTK_SUPPORT_H
#define JWTK_SUPPORT_H
#include <stdint.h>

static inline void jwtk_support_add(uint64_t *counter, uint64_t value) {
    __atomic_fetch_add(counter, value, __ATOMIC_RELAXED);
}

static inline uint64_t jwtk_support_fetch_add(uint64_t *counter, uint64_t value) {
    return __atomic_fetch_add(counter, value, __ATOMIC_RELAXED);
}

static inline uint64_t jwtk_support_load(const uint64_t *counter) {
    return __atomic_load_n(counter, __ATOMIC_RELAXED);
}

/* Publication order: a reader that sees the new generation also sees what was stored before it. */
static inline void jwtk_support_store_release(uint64_t *word, uint64_t value) {
    __atomic_store_n(word, value, __ATOMIC_RELEASE);
}

static inline uint64_t jwtk_support_load_acquire(const uint64_t *word) {
    return __atomic_load_n(word, __ATOMIC_ACQUIRE);
}

static inline void jwtk_support_store_relaxed(uint64_t *word, uint64_t value) {
    __atomic_store_n(word, value, __ATOMIC_RELAXED);
}
#endif
