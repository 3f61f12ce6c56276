/* Bytes in use by malloc, for the key store's memory-per-key figure (KeyStoreScale.swift).
 * Swift's Glibc module does not import <malloc.h>. */
#include <malloc.h>

#include "cbench.h"

size_t cb_malloc_bytes_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}
