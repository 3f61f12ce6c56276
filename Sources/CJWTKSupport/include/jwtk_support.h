/* Internal helpers of the C library, not installed: the version string, the start lock and the claims copy
 * (not exported: the version script names jwtk.h's functions only). (Atomics are Swift's Synchronization.Atomic.) */
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

/* The process-wide lock of jwtk_keystore_start: a plain pthread mutex, statically initialized (no lazy
 * initialization of its own), so two threads never race through a start at once. Why: in a forked child the
 * Swift runtime's lock behind lazy globals (swift_once) still holds the parent's thread id in the main
 * thread's thread-local cache, and when that thread and another contend for one initializer the waiter spins
 * forever (seen: two HAProxy threads starting their keystores; a C program's forked child, 12 of 100). The
 * first start runs lazy initializers (the fork handlers' registration); serialized, they are never contended.
 * Not exported: the version script names jwtk.h's functions only (scripts/clib/install.sh). */
void jkernel_start_lock(void);
void jkernel_start_unlock(void);

/* Copies every field of `from` after struct_size into `to`, keeping `to->struct_size` (the caller's): a cache
 * hit's jwtk_claims from the template kept with the cache entry (Sources/JWTKernelC/Claims/ClaimsTemplate.swift).
 * With AVX2, six 32-byte loads and stores; the field-by-field copy was fourteen stores, which a hit of ~50 ns
 * felt (docs/PERFORMANCE.md). Without it, memcpy. */
void jkernel_claims_copy(jwtk_claims *to, const jwtk_claims *from);
#endif
