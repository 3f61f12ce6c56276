#ifndef CBENCH_ALLOC_INTERNAL_H
#define CBENCH_ALLOC_INTERNAL_H
/* Between the malloc counter and the OpenSSL allocator hooks. */

/* Called by the OpenSSL hooks for each allocation OpenSSL asks for, before passing it on
 * to malloc/realloc (which count it once more, as any allocation). */
void cb_alloc_note_openssl(void);

#endif
