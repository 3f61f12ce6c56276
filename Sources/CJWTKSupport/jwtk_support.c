/* SwiftPM needs one source file per C target; the helpers are static inline in the header. */
#include "jwtk_support.h"
