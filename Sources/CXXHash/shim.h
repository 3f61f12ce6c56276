#ifndef JWTK_CXXHASH_SHIM_H
#define JWTK_CXXHASH_SHIM_H
#include <xxhash.h>
#endif
