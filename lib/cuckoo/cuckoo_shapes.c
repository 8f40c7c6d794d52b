/*
 * The bodies of lookup, insert and remove, compiled once for each common
 * shape (4-slot buckets of 4-, 8-, 9-, 12- and 16-bit fingerprints: the
 * paper's operating point, least-TLB's tracker and F-Barre's filters) and
 * once for every other shape, and the public operations that run them.
 * The templates are in cuckoo_ops.h.
 */
#include "cuckoo_ops.h"
#include "cuckoo_lookup.h"

/* One shape's table; F = 0 is the generic shape. */
#define CUCKOO_SHAPE(name, F)                                                          \
    static bool name##_contains(const xlat_cuckoo *cf, uint64_t key)                  \
    {                                                                                  \
        return shape_contains(cf, key, F);                                             \
    }                                                                                  \
    static __attribute__((noinline)) int name##_kick(xlat_cuckoo *cf, uint64_t i1,      \
                                                     uint64_t i2, uint32_t fp)         \
    {                                                                                  \
        return shape_kick(cf, i1, i2, fp, F);                                          \
    }                                                                                  \
    static int name##_insert(xlat_cuckoo *cf, uint64_t key)                           \
    {                                                                                  \
        return shape_insert(cf, key, F, name##_kick);                                  \
    }                                                                                  \
    static int name##_remove(xlat_cuckoo *cf, uint64_t key)                           \
    {                                                                                  \
        return shape_remove(cf, key, F);                                               \
    }                                                                                  \
    static int64_t name##_first(void *const *cfs, const uint64_t *pick, uint32_t words,  \
                                uint64_t key)                                          \
    {                                                                                  \
        return shape_first(cfs, pick, words, key, F);                                  \
    }                                                                                  \
    static const struct cuckoo_shape name = {name##_contains, name##_insert, name##_remove, \
                                             name##_first}

CUCKOO_SHAPE(shape_generic, 0);
CUCKOO_SHAPE(shape_f4b4, 4);
CUCKOO_SHAPE(shape_f8b4, 8);
CUCKOO_SHAPE(shape_f9b4, 9);
CUCKOO_SHAPE(shape_f12b4, 12);
CUCKOO_SHAPE(shape_f16b4, 16);

const struct cuckoo_shape *xlat__cuckoo_shape(uint32_t f, uint32_t b)
{
    /* The one-word bucket load reads the table's words as bytes. */
    if (b != WORD_SLOTS || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__)
        return &shape_generic;
    switch (f) {
    case 4: return &shape_f4b4;
    case 8: return &shape_f8b4;
    case 9: return &shape_f9b4;
    case 12: return &shape_f12b4;
    case 16: return &shape_f16b4;
    default: return &shape_generic;
    }
}

/* ---- the operations, through the shape chosen at create ---------------- */

/* The default shape (f = 12, b = 4, the paper's operating point) is tested
 * for first: its lookup is then inlined here, with no jump through the
 * shape table. (Inlining the insert the same way counted more
 * instructions per insert: its kicks make it a larger function.) */
static inline bool default_shape(const xlat_cuckoo *cf)
{
    return __builtin_expect(cf->f == 12 && cf->b == WORD_SLOTS, 1);
}

int xlat_cuckoo_insert(xlat_cuckoo *cf, uint64_t key)
{
    return cf ? cf->ops.insert(cf, key) : XLAT_ERR_INVAL;
}

int xlat_cuckoo_insert_unique(xlat_cuckoo *cf, uint64_t key)
{
    if (!cf)
        return XLAT_ERR_INVAL;
    if (cf->ops.contains(cf, key))
        return XLAT_ERR_EXIST;
    return cf->ops.insert(cf, key);
}

bool xlat_cuckoo_contains(const xlat_cuckoo *cf, uint64_t key)
{
    if (!cf)
        return false;
    if (default_shape(cf))
        return shape_contains(cf, key, 12);
    return cf->ops.contains(cf, key);
}

int64_t xlat__cuckoo_first(void *const *cfs, const uint64_t *pick, uint32_t words, uint64_t key)
{
    for (uint32_t w = 0; w < words; w++)
        if (pick[w]) { /* the first filter picked: its shape is every one's */
            const xlat_cuckoo *cf = cfs[w * 64 + (uint32_t)__builtin_ctzll(pick[w])];
            return cf->ops.first(cfs, pick, words, key);
        }
    return -1;
}

int xlat_cuckoo_remove(xlat_cuckoo *cf, uint64_t key)
{
    return cf ? cf->ops.remove(cf, key) : XLAT_ERR_INVAL;
}
