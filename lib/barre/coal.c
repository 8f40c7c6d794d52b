/*
 * Barre Chord's group information in a PTE and the PEC calculation
 * ("Barre Chord: Efficient Virtual Memory Translation for Multi-Chip-Module
 * GPUs" §IV-B, §IV-F, §V-B; the layout is doc/barre.md's).
 */
#include "internal.h"
#include "xlat/barre.h"

#define COAL_SHIFT 52
#define COAL_MASK (UINT64_C(0x7FF) << COAL_SHIFT) /* bits 52..62 */

/* A field of the group information: its width and where it starts above bit 52. */
struct coal_field {
    unsigned at, bits;
};

/* bitmap, inter, intra, merged in each layout; a width of 0: not stored */
static const struct coal_field barre_layout[4] = {{0, 8}, {8, 3}, {0, 0}, {0, 0}};
static const struct coal_field expanded_layout[4] = {{0, 4}, {4, 2}, {6, 2}, {8, 2}};

static uint64_t field_put(uint64_t v, struct coal_field f)
{
    uint64_t mask = (UINT64_C(1) << f.bits) - 1;
    return (v & mask) << (COAL_SHIFT + f.at);
}

static uint8_t field_get(uint64_t pte, struct coal_field f)
{
    uint64_t mask = (UINT64_C(1) << f.bits) - 1;
    return (uint8_t)((pte >> (COAL_SHIFT + f.at)) & mask);
}

uint64_t xlat_coal_encode(uint64_t pte, const xlat_coal_info *ci, bool expanded)
{
    pte &= ~COAL_MASK;
    if (!ci)
        return pte;
    const struct coal_field *l = expanded ? expanded_layout : barre_layout;
    const uint8_t v[4] = {ci->bitmap, ci->inter, ci->intra, ci->merged};
    for (int i = 0; i < 4; i++)
        if (l[i].bits)
            pte |= field_put(v[i], l[i]);
    return pte;
}

void xlat_coal_decode(uint64_t pte, bool expanded, xlat_coal_info *out)
{
    if (!out)
        return;
    const struct coal_field *l = expanded ? expanded_layout : barre_layout;
    uint8_t v[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4; i++)
        if (l[i].bits)
            v[i] = field_get(pte, l[i]);
    *out = (xlat_coal_info){.bitmap = v[0], .inter = v[1], .intra = v[2], .merged = v[3]};
}

/* Whether chiplet `g` is in the group. Barre's layout puts chiplet 0 on
 * bit 7, the expanded one (4 chiplets at most) on bit 3; a group of
 * chiplets below 4 uses only one nibble, so the set bits say which. */
static bool chiplet_in(const xlat_pec_entry *d, uint8_t bitmap, uint8_t g)
{
    bool barre = (bitmap & 0xF0) != 0;
    for (uint8_t k = 0; k < d->positions && !barre; k++)
        barre = d->gpu_map[k] >= 4;
    unsigned bit = barre ? 7u - g : 3u - g;
    return g < (barre ? 8 : 4) && (bitmap >> bit & 1);
}

static bool in_object(const xlat_pec_entry *d, uint64_t vpn)
{
    return vpn >= d->start_vpn && vpn <= d->end_vpn;
}

int xlat_pec_calc(const xlat_pec_entry *d, const uint64_t *base_pfn, uint64_t vpn,
                  uint64_t pfn, const xlat_coal_info *ci, uint64_t q, uint64_t *pfn_out)
{
    if (!d || !base_pfn || !ci || !pfn_out || d->interlv_gran == 0 || d->positions > 16 ||
        ci->inter >= d->positions)
        return XLAT_ERR_INVAL;
    if (!in_object(d, vpn) || !in_object(d, q))
        return XLAT_ERR_NOT_FOUND;
    uint64_t g = d->interlv_gran;
    uint64_t before = ci->intra + g * ci->inter; /* pages of the group before the walked one */
    if (vpn - d->start_vpn < before)
        return XLAT_ERR_NOT_FOUND; /* group information that does not fit the object */
    uint64_t first = vpn - before;
    if (q < first)
        return XLAT_ERR_NOT_FOUND;
    uint64_t position = (q - first) / g, intra = (q - first) % g;
    if (intra > ci->merged || position >= d->positions ||
        !chiplet_in(d, ci->bitmap, d->gpu_map[position]))
        return XLAT_ERR_NOT_FOUND;
    uint64_t local = pfn - base_pfn[d->gpu_map[ci->inter]] - ci->intra;
    *pfn_out = base_pfn[d->gpu_map[position]] + local + intra;
    return XLAT_OK;
}
