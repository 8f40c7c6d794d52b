/* xlat-sim end to end: each preset on its own workload, as `xlat-sim
 * --preset NAME --requests N` runs it (configuration, world, first-touch
 * mapping, the timed issue loop, the answers' accounting), in requests per
 * host second; and one preset at three sizes, to show how the cost grows. */
#include <string.h>

#include "bench.h"
#include "job.h"

/* One run of `preset` for `requests`; the host seconds of the run, or a
 * negative number when a step failed (printed). */
static double sim_once(const char *preset, uint64_t requests, sim_result *res)
{
    sim_world w;
    sim_error err = {{0}};
    if (sim_run_preset(preset, NULL, requests, &w, res, &err) != 0) {
        fprintf(stderr, "bench sim %s: %s\n", preset, err.msg);
        return -1;
    }
    sim_world_destroy(&w);
    return res->host_seconds;
}

void bench_sim(void)
{
    size_t n;
    const sim_preset_info *p = sim_presets(&n);
    printf("\nxlat-sim, end to end (timed mode, each preset's own workload)\n");
    for (size_t i = 0; i < n; i++) {
        sim_result res;
        uint64_t requests = 20000;
        double s = sim_once(p[i].name, requests, &res);
        if (s < 0)
            continue;
        char what[96], note[96];
        snprintf(what, sizeof(what), "xlat-sim %s (%llu requests)", p[i].name,
                 (unsigned long long)requests);
        snprintf(note, sizeof(note), "%llu simulated cycles, %.0f cycles/host s",
                 (unsigned long long)(res.end_cycle - res.start_cycle),
                 (double)(res.end_cycle - res.start_cycle) / (s > 0 ? s : 1));
        bench_row(what, (double)requests, s, note);
        sim_result_free(&res);
    }
    for (uint64_t requests = 25000; requests <= 400000; requests *= 4) {
        sim_result res;
        double s = sim_once("least-tlb", requests, &res);
        if (s < 0)
            continue;
        char what[96];
        snprintf(what, sizeof(what), "xlat-sim least-tlb, %llu requests",
                 (unsigned long long)requests);
        bench_row(what, (double)requests, s, "growth with the run's length");
        sim_result_free(&res);
    }
}
