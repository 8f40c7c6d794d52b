/*
 * One preset's run in-process, as `xlat-sim --preset NAME --requests N
 * [--set ...]` does it on the preset's own workload: for the tests and the
 * bench, which inspect the world and the result afterwards.
 */
#include <stdio.h>

#include "job.h"

sim_shape sim_config_shape(const sim_config *cfg)
{
    return (sim_shape){.gpus = cfg->system.gpus, .cus = cfg->system.cus,
                       .pasids = cfg->run.pasids ? cfg->run.pasids : 1,
                       .page_shift = cfg->mem.page_shift, .seed = cfg->run.seed,
                       .requests = cfg->run.requests};
}

int sim_run_preset(const char *name, const char *const *sets, uint64_t requests, sim_world *w,
                   sim_result *res, sim_error *err)
{
    sim_config cfg;
    char n[32];
    snprintf(n, sizeof(n), "%llu", (unsigned long long)requests);
    if (sim_preset_apply(&cfg, name, err) != 0 ||
        sim_config_set(&cfg, "run", "requests", n, "sim_run_preset", err) != 0)
        return -1;
    for (; sets && *sets; sets++)
        if (sim_config_set_arg(&cfg, *sets, err) != 0)
            return -1;
    snprintf(cfg.preset, sizeof(cfg.preset), "%s", name);
    sim_shape shape = sim_config_shape(&cfg);
    sim_source *src;
    if (sim_workload_open(cfg.run.workload, &shape, &src, err) != 0)
        return -1;
    int rc = sim_world_build(w, &cfg, err);
    if (rc == 0) {
        sim_run_opts opts = {0};
        rc = sim_world_map_objects(w, src->objects, src->nobjects, err);
        if (rc == 0)
            rc = sim_run(w, src, &opts, res, err);
        if (rc != 0)
            sim_world_destroy(w);
    }
    sim_source_close(src);
    return rc;
}
