// libFuzzer's own mutator, callable from a custom mutator (defined by libFuzzer's runtime, so
// only fuzz builds, compiled with -DFUZZING, may reference it).
#include <stddef.h>
#include <stdint.h>
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
