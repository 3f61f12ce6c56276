/* SwiftPM needs one source file per C target; most helpers are static inline in the header. */
#include <pthread.h>
#include "jwtk_support.h"

static pthread_mutex_t jkernel_start_mutex = PTHREAD_MUTEX_INITIALIZER;

void jkernel_start_lock(void) { pthread_mutex_lock(&jkernel_start_mutex); }

void jkernel_start_unlock(void) { pthread_mutex_unlock(&jkernel_start_mutex); }
