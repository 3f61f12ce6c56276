/* Counts allocations of the whole process by defining malloc & co. in the executable,
 * which the dynamic linker binds ahead of libc for every library (Swift runtime,
 * Foundation, libcrypto, libjwt). The real allocator is reached through glibc's
 * __libc_* entry points rather than dlsym(RTLD_NEXT): dlsym itself allocates, which
 * would recurse into malloc before the pointer is known. free is not interposed.
 *
 * Two counters: a process-wide one (allocs_per_op, which includes helper threads), and
 * one per thread for the zero-allocation guard, which must not see other threads'
 * allocations (a Dispatch worker, jwt-kit's pool) while it counts a single-thread cell. */
#include "alloc_internal.h"
#include "cbench.h"
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static atomic_int counting;
static atomic_uint_fast64_t count;

/* Executable TLS is static (initial-exec): reading it never allocates, so malloc may touch it. */
static _Thread_local int thread_counting;
static _Thread_local uint64_t thread_count, thread_openssl_count;

static inline void note(void) {
    if (atomic_load_explicit(&counting, memory_order_relaxed))
        atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    if (thread_counting) thread_count++;
}

void cb_alloc_note_openssl(void) {
    if (thread_counting) thread_openssl_count++;
}

void *malloc(size_t n) { note(); return __libc_malloc(n); }
void *calloc(size_t a, size_t n) { note(); return __libc_calloc(a, n); }
void *realloc(void *p, size_t n) { note(); return __libc_realloc(p, n); }
void *memalign(size_t al, size_t n) { note(); return __libc_memalign(al, n); }
void *aligned_alloc(size_t al, size_t n) { note(); return __libc_memalign(al, n); }
int posix_memalign(void **out, size_t al, size_t n) {
    if (al < sizeof(void *) || (al & (al - 1)) != 0) return EINVAL;
    note();
    void *p = __libc_memalign(al, n);
    if (p == NULL) return ENOMEM;
    *out = p;
    return 0;
}

void cb_alloc_count_begin(void) {
    atomic_store(&count, 0);
    atomic_store(&counting, 1);
}

uint64_t cb_alloc_count_end(void) {
    atomic_store(&counting, 0);
    return atomic_load(&count);
}

void cb_alloc_thread_begin(void) {
    thread_count = 0;
    thread_openssl_count = 0;
    thread_counting = 1;
}

cb_alloc_counts cb_alloc_thread_end(void) {
    thread_counting = 0;
    cb_alloc_counts counts = {thread_count, thread_openssl_count};
    return counts;
}

/* strdup allocates inside libc: it reaches our malloc only if the interposition took. */
int cb_alloc_counting_works(void) {
    char *(*volatile dup)(const char *) = strdup;
    cb_alloc_count_begin();
    char *p = dup("x");
    uint64_t n = cb_alloc_count_end();
    free(p);
    return n >= 1;
}
