/*
 * The arithmetic of DWS++ ("Improving GPU Multi-tenancy with Page Walk
 * Stealing" §V, Tables IV and VII): the ratio ladder that sets DIFF_THRES at
 * the end of an epoch, and the steal test at a walk's completion.
 */
#include "internal.h"
#include "xlat/walker.h"
#include "dwspp_rules.h"

void xlat_dwspp_preset_sized(xlat_dwspp_config *out, size_t size, xlat_dwspp_variant v)
{
    static const double ladder[5] = {0.4, 0.6, 0.8, 0.9, 1.0};
    xlat_dwspp_config full, *c = &full;
    memset(c, 0, sizeof(*c));
    c->struct_size = sizeof(*c);
    c->epoch_length = 200;
    c->ratio[0] = 1.5;
    c->ratio[1] = 2.0;
    c->ratio[2] = 3.0;
    c->ratio[3] = 4.0;
    for (int i = 0; i < 5; i++)
        c->diff_thres[i] = v == XLAT_DWSPP_AGGRESSIVE ? 0.3 : ladder[i];
    c->queue_thres = v == XLAT_DWSPP_CONSERVATIVE ? 0.17 : 0.51;
    c->strict_bounds = false;
    xlat__config_out(out, size, &full, sizeof(full));
}

double xlat_dwspp_threshold(const xlat_dwspp_config *c, uint64_t more, uint64_t fewer)
{
    if (!c)
        return 1.0;
    if (more < fewer) {
        uint64_t t = more;
        more = fewer;
        fewer = t;
    }
    /* R = more / fewer, compared as more <= bound * fewer to stay exact for
     * the ratios an epoch of whole arrivals can produce. */
    for (int i = 0; i < 4; i++) {
        double bound = c->ratio[i] * (double)fewer;
        bool within = c->strict_bounds ? (double)more < bound : (double)more <= bound;
        if (fewer && within)
            return c->diff_thres[i];
    }
    return c->diff_thres[4];
}

bool xlat_dwspp_should_steal(const xlat_dwspp_config *c, double diff_thres, bool is_stolen,
                             uint32_t own_queue_len, uint32_t queue_cap, uint64_t own_queued,
                             uint64_t own_capacity, uint64_t other_queued,
                             uint64_t other_capacity)
{
    if (!c || is_stolen || !queue_cap || !own_capacity || !other_capacity)
        return false; /* no consecutive steals */
    if (diff_thres >= 1.0)
        return false; /* Table IV "No stealing" (documented as >= 1.0) */
    if ((double)own_queue_len / queue_cap > c->queue_thres)
        return false; /* its own queue is busy enough */
    double diff = (double)other_queued / (double)other_capacity -
                  (double)own_queued / (double)own_capacity;
    return diff > diff_thres;
}
