/* One preset's run in-process (job.c), and the shape a source generates for. */
#ifndef XLAT_SIM_JOB_H
#define XLAT_SIM_JOB_H

#include "run.h"

/* The system shape and run length a source of `cfg` generates for. */
sim_shape sim_config_shape(const sim_config *cfg);

/* Preset `name`, then `sets` ("section.key=value", NULL-terminated; NULL:
 * none), for `requests` requests of the preset's workload: 0 with the
 * world still built (the caller destroys it, and frees the result), or -1
 * with err and nothing left to destroy. */
int sim_run_preset(const char *name, const char *const *sets, uint64_t requests, sim_world *w,
                   sim_result *res, sim_error *err);

#endif /* XLAT_SIM_JOB_H */
