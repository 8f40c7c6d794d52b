/*
 * The cuckoo filter's state, shared by the public entry points
 * (cuckoo.c) and the per-shape bodies of lookup, insert and remove
 * (cuckoo_shapes.c, built from the templates of cuckoo_ops.h).
 */
#ifndef XLAT_CUCKOO_INTERNAL_H
#define XLAT_CUCKOO_INTERNAL_H

#include "internal.h"
#include "registry.h"
#include "xlat/cuckoo.h"

/* Lookup, insert, remove and the lookup of many filters for one shape
 * (fingerprint width and bucket size), chosen at create: the common
 * shapes have bodies compiled for their constants, every other shape
 * takes the generic one. */
struct cuckoo_shape {
    bool (*contains)(const xlat_cuckoo *cf, uint64_t key);
    int (*insert)(xlat_cuckoo *cf, uint64_t key);
    int (*remove)(xlat_cuckoo *cf, uint64_t key);
    int64_t (*first)(void *const *cfs, const uint64_t *pick, uint32_t words, uint64_t key);
};

struct xlat_cuckoo {
    struct cuckoo_shape ops; /* first: a lookup is one indirect jump away */
    uint64_t *table;      /* slots × f bits, slot s at bits [s·f, s·f + f),
                             then one word of padding (see CUCKOO_PAD_WORDS) */
    uint64_t mask;        /* buckets - 1 */
    uint64_t key_index;   /* hash keys drawn from the context's seed */
    uint64_t key_alt;     /* odd: the multiplier of hash(fp) */
    uint64_t lane_ones;   /* a 1 at the low bit of each f-bit lane of a one-word
                             bucket: fp × lane_ones is fp in every lane. A field,
                             not a constant, so that the multiply stays one
                             instruction (gcc expands the constant into shifts) */
    uint64_t fp_mask;     /* 2^f - 1: the number of nonzero fingerprints */
    uint32_t b;           /* slots per bucket */
    uint32_t f;           /* fingerprint bits */
    size_t count;
    uint8_t *undo;        /* slot kicked at each step of the insert in progress */
    xlat_rng rng;         /* kick choices */
    xlat_rng rng_start;   /* rng as it was after create, restored by clear */
    size_t table_words;   /* words holding slots, padding excluded */
    xlat_ctx *ctx;
    xlat_cuckoo_config cfg;
    struct xlat__reg reg;
};

/* The specialised shapes read a whole bucket with one unaligned 8-byte
 * load at the byte where it starts; the last bucket's load may reach up
 * to 7 bytes past the packed slots, so the table ends with a spare word. */
#define CUCKOO_PAD_WORDS 1

/* The lookup, insert and remove bodies for `f`-bit fingerprints in
 * `b`-slot buckets (cuckoo_shapes.c). */
const struct cuckoo_shape *xlat__cuckoo_shape(uint32_t f, uint32_t b);

#endif
