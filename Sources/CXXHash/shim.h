#ifndef JWTK_CXXHASH_SHIM_H
#define JWTK_CXXHASH_SHIM_H
/* The secret-based XXH3 API (XXH3_generateSecret) sits behind this macro; the .so exports it. */
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>
#endif
