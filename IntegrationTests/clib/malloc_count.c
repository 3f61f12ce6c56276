/* Counts every heap allocation in the process: this executable's definitions of malloc and friends
 * interpose on every shared library's calls (libjwtk, the Swift runtime inside it, OpenSSL) and
 * forward to glibc's own entry points. Only for the plain (non-ASan, non-valgrind) build. */
#include <stddef.h>
#include <string.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static unsigned long allocations;

unsigned long malloc_count(void) { return __atomic_load_n(&allocations, __ATOMIC_RELAXED); }

static void counted(void) { __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED); }

void *malloc(size_t n) { counted(); return __libc_malloc(n); }
void *calloc(size_t n, size_t size) { counted(); return __libc_calloc(n, size); }
void *realloc(void *p, size_t n) { counted(); return __libc_realloc(p, n); }
void *memalign(size_t alignment, size_t n) { counted(); return __libc_memalign(alignment, n); }
void *aligned_alloc(size_t alignment, size_t n) { counted(); return __libc_memalign(alignment, n); }

int posix_memalign(void **out, size_t alignment, size_t n) {
    void *p;
    counted();
    p = __libc_memalign(alignment, n);
    if (!p) return 12; /* ENOMEM */
    *out = p;
    return 0;
}
