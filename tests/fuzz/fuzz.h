/* What every libFuzzer harness of tests/fuzz shares (doc/reliability.md).
 *
 * A harness is tests/fuzz/fuzz_NAME.c. It defines
 *     int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
 * which decodes the bytes into calls of the library, checks the results
 * against what must hold, and returns 0. It never fails on input it cannot
 * decode (that input just ends early): only a broken rule of the library
 * is a failure, reported through FUZZ_CHECK. Its crashing inputs are kept
 * as files under tests/fuzz/corpus/NAME/ and replayed by make check.
 *
 * The same file is built two ways:
 *   - by make fuzz, with clang's -fsanitize=fuzzer (plus ASan and UBSan),
 *     libFuzzer supplying main();
 *   - by make check, with gcc and -DLLVMFuzzerTestOneInput=fuzz_NAME_one,
 *     so that every harness links into the Check runner, which replays the
 *     corpus through fuzz_NAME_one.
 * A harness keeps no state between inputs: everything it creates it
 * destroys before returning, so an input replays the same anywhere.
 */
#ifndef XLAT_FUZZ_H
#define XLAT_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "xlat/xlat.h"

/* A broken rule: says which and where, then stops the run (libFuzzer saves
 * the input; the Check replay reports the test as failed). */
#define FUZZ_CHECK(cond, ...)                                                       \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "%s:%d: FUZZ_CHECK(%s) failed: ", __FILE__, __LINE__,  \
                    #cond);                                                        \
            fprintf(stderr, __VA_ARGS__);                                          \
            fputc('\n', stderr);                                                   \
            abort();                                                               \
        }                                                                          \
    } while (0)

/* The input, read a few bytes at a time; past its end every read gives 0
 * and `fuzz_more` says no. */
typedef struct fuzz_input {
    const uint8_t *data;
    size_t size, pos;
} fuzz_input;

static inline int fuzz_more(const fuzz_input *in)
{
    return in->pos < in->size;
}

static inline uint8_t fuzz_u8(fuzz_input *in)
{
    return in->pos < in->size ? in->data[in->pos++] : 0;
}

static inline uint16_t fuzz_u16(fuzz_input *in)
{
    uint16_t lo = fuzz_u8(in);
    return (uint16_t)(lo | (uint16_t)fuzz_u8(in) << 8);
}

static inline uint32_t fuzz_u32(fuzz_input *in)
{
    uint32_t lo = fuzz_u16(in);
    return lo | (uint32_t)fuzz_u16(in) << 16;
}

static inline uint64_t fuzz_u64(fuzz_input *in)
{
    uint64_t lo = fuzz_u32(in);
    return lo | (uint64_t)fuzz_u32(in) << 32;
}

/* A value in [0, n), n > 0, from one byte (n <= 256) or four. */
static inline uint32_t fuzz_below(fuzz_input *in, uint32_t n)
{
    return n <= 256 ? fuzz_u8(in) % n : fuzz_u32(in) % n;
}

#endif
