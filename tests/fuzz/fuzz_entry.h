/* The entry point's prototype, included (-include) before every harness by
 * both builds: under make check's -DLLVMFuzzerTestOneInput=fuzz_NAME_one it
 * declares the replay function tests/check_fuzz_corpus.c calls, and either
 * way a harness builds clean under -Wmissing-prototypes. */
#ifndef XLAT_FUZZ_ENTRY_H
#define XLAT_FUZZ_ENTRY_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
