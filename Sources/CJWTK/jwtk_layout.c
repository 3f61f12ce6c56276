/* Compiles jwtk.h as part of every build and pins the layout FFI clients (LuaJIT cdef, ctypes)
 * copy from it: a change here is an ABI break and must bump the SONAME. */
#include <stddef.h>
#include "jwtk.h"

_Static_assert(sizeof(jwtk_str) == 2 * sizeof(void *), "jwtk_str is {ptr, len}");
_Static_assert(offsetof(jwtk_claims, alg) == 8, "jwtk_claims: struct_size and flags come first");
_Static_assert(offsetof(jwtk_claims, exp) == 8 + 9 * sizeof(jwtk_str), "jwtk_claims: nine strings, then times");
_Static_assert(sizeof(jwtk_claims) == 8 + 9 * sizeof(jwtk_str) + 3 * 8, "jwtk_claims size");
_Static_assert(offsetof(jwtk_stats, allowed) == 8, "jwtk_stats: struct_size and reserved come first");
_Static_assert(offsetof(jwtk_stats, jwks_not_modified) == 8 + (2 + JWTK_STATS_STATUS_SLOTS + 11) * 8 + 2 * 8,
               "jwtk_stats: the 0.1.0 layout is a prefix");
_Static_assert(sizeof(jwtk_stats) == 8 + (2 + JWTK_STATS_STATUS_SLOTS + 11) * 8 + 2 * 8 + 5 * 8, "jwtk_stats size");
