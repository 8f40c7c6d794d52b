/*
 * What the command line asked for, and the actions main() dispatches to
 * (cli.c): kept out of main.c so that the tests run them in-process.
 */
#ifndef XLAT_SIM_CLI_H
#define XLAT_SIM_CLI_H

#include <stdio.h>

#include "sim.h"

#define SIM_CLI_MAX_PRESETS 32
#define SIM_CLI_MAX_SETS 256

typedef enum sim_action {
    SIM_RUN, SIM_COMPARE, SIM_CONVERT, SIM_LIST_PRESETS, SIM_LIST_WORKLOADS, SIM_LIST_KNOBS,
    SIM_HELP, SIM_VERSION, SIM_SWEEP
} sim_action;

typedef struct sim_cli {
    sim_action action;
    const char *preset[SIM_CLI_MAX_PRESETS];
    size_t npresets;
    const char *config;
    char *set[SIM_CLI_MAX_SETS];        /* "section.key=value", in command-line order */
    size_t nsets;
    const char *trace, *workload;
    const char *json, *csv, *log;
    const char *convert_in, *convert_out;
    bool quiet, progress;
} sim_cli;

int sim_cli_add_preset(sim_cli *cli, const char *name);
int sim_cli_add_set(sim_cli *cli, const char *arg);
void sim_cli_free(sim_cli *cli);

/* The configuration of run `i` (preset i, or none): preset, INI, sets. */
int sim_cli_config(const sim_cli *cli, size_t i, sim_config *cfg, sim_error *err);

int sim_cli_run(sim_cli *cli);
int sim_cli_compare(sim_cli *cli);
int sim_cli_convert(const sim_cli *cli);
int sim_cli_list_presets(FILE *f);
int sim_cli_list_workloads(FILE *f);
int sim_cli_list_knobs(FILE *f);

#endif /* XLAT_SIM_CLI_H */
