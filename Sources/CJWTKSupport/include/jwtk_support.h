/* Internal helpers of the C library, not installed: relaxed atomic counters, an atomic generation
 * number and the version string, as static inline functions so nothing is exported. */
#ifndef JWTK_SUPPORT_H
#define JWTK_SUPPORT_H
#include <stdint.h>
#include "jwtk.h"

/* The library's version for jwtk_version(): jwtk.h's JWTK_VERSION, so Sources/JWTKernelC/Version.swift spells
 * no version of its own (scripts/version-check.sh keeps the header equal to the top-level VERSION file).
 * A string literal: static storage, never freed, the same pointer on every call. (Here rather than in a
 * header of its own: clang's module cache does not notice a new file in an umbrella directory, so
 * incremental builds would not see it.) */
static inline const char *jwtk_support_version(void) { return JWTK_VERSION; }

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

/* The process-wide lock of jwtk_keystore_start: a plain pthread mutex, statically initialized (no lazy
 * initialization of its own), so two threads never race through a start at once. Why: in a forked child the
 * Swift runtime's lock behind lazy globals (swift_once) still holds the parent's thread id in the main
 * thread's thread-local cache, and when that thread and another contend for one initializer the waiter spins
 * forever (seen: two HAProxy threads starting their keystores; a C program's forked child, 12 of 100). The
 * first start runs lazy initializers (the fork handlers' registration); serialized, they are never contended.
 * Not exported: the version script names jwtk.h's functions only (scripts/clib/install.sh). */
void jkernel_start_lock(void);
void jkernel_start_unlock(void);
#endif
