/*
 * One run of a sweep, in this process: `xlat-sim sweep SPEC --out DIR
 * --run-index I` is `xlat-sim --preset P --set ... --json DIR/runs/I.json`
 * with its stderr in DIR/logs/I.log. The JSON is written under a temporary
 * name and renamed when the run succeeded, so that a run that failed or
 * was killed leaves no JSON for the merge to take.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "sweep.h"

void sweep_run_path(const char *dir, size_t index, const char *what, char *buf, size_t len)
{
    if (!strcmp(what, "json"))
        snprintf(buf, len, "%s/runs/%04zu.json", dir, index);
    else if (!strcmp(what, "tmp"))
        snprintf(buf, len, "%s/runs/%04zu.json.tmp", dir, index);
    else
        snprintf(buf, len, "%s/logs/%04zu.log", dir, index);
}

static int add_set(sim_cli *cli, const char *key, const char *value)
{
    char arg[1200];
    snprintf(arg, sizeof(arg), "%s=%s", key, value);
    return sim_cli_add_set(cli, arg);
}

/* The command line the run stands for, as sim_cli_config() builds it. */
static int point_cli(const sweep_spec *spec, const sweep_point *pt, sim_cli *cli)
{
    const char *run_key[] = {"run.requests", "run.warmup", "run.mode", "run.seed"};
    const char *run_val[] = {spec->requests, spec->warmup, spec->mode, pt->seed ? pt->seed : ""};
    sim_cli_add_preset(cli, pt->preset);
    cli->workload = pt->workload;
    cli->quiet = true;
    for (size_t i = 0; i < 4; i++)
        if (run_val[i][0] && add_set(cli, run_key[i], run_val[i]) != 0)
            return -1;
    for (size_t k = 0; k < spec->nknobs; k++)
        if (add_set(cli, spec->knob[k].name, pt->knob[k]) != 0)
            return -1;
    return 0;
}

int sweep_run_one(const sweep_spec *spec, const char *dir, size_t index)
{
    char json[4200], tmp[4200], log[4200];
    sweep_run_path(dir, index, "json", json, sizeof(json));
    sweep_run_path(dir, index, "tmp", tmp, sizeof(tmp));
    sweep_run_path(dir, index, "log", log, sizeof(log));
    if (unlink(json) != 0 && errno != ENOENT) {
        fprintf(stderr, "xlat-sim sweep: %s: cannot remove the earlier result: %s\n", json,
                strerror(errno));
        return 1;
    }
    if (!freopen(log, "w", stderr)) {
        /* stderr is gone with the failed freopen: stdout is what is left */
        printf("xlat-sim sweep: %s: cannot write the run's log\n", log);
        return 1;
    }
    sweep_point pt;
    sweep_point_at(spec, index, &pt);
    sim_cli cli = {.action = SIM_RUN, .json = tmp};
    if (point_cli(spec, &pt, &cli) != 0) {
        fprintf(stderr, "xlat-sim sweep: run %zu: out of memory\n", index);
        sim_cli_free(&cli);
        return 1;
    }
    int status = sim_cli_run(&cli); /* frees the --set copies */
    if (status == 0 && rename(tmp, json) != 0) {
        fprintf(stderr, "xlat-sim sweep: %s: %s\n", json, strerror(errno));
        status = 1;
    }
    if (status != 0)
        unlink(tmp);
    return status;
}

static int make_dir(const char *path, sim_error *err)
{
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return sim_fail(err, "%s: cannot create the folder: %s", path, strerror(errno));
    return 0;
}

/* runs.tsv: index, preset, workload, seed, then each knob: the grid as
 * the runs see it ("-" where the spec leaves the preset's own). */
static int write_runs_tsv(const sweep_spec *spec, const char *dir, sim_error *err)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/runs.tsv", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return sim_fail(err, "%s: cannot write: %s", path, strerror(errno));
    fputs("index\tpreset\tworkload\tseed", f);
    for (size_t k = 0; k < spec->nknobs; k++)
        fprintf(f, "\t%s", spec->knob[k].name);
    fputc('\n', f);
    for (size_t i = 0; i < spec->nruns; i++) {
        sweep_point pt;
        sweep_point_at(spec, i, &pt);
        fprintf(f, "%zu\t%s\t%s\t%s", i, pt.preset, pt.workload ? pt.workload : "-",
                pt.seed ? pt.seed : "-");
        for (size_t k = 0; k < spec->nknobs; k++)
            fprintf(f, "\t%s", pt.knob[k]);
        fputc('\n', f);
    }
    if (fclose(f) != 0)
        return sim_fail(err, "%s: cannot write: %s", path, strerror(errno));
    return 0;
}

int sweep_prepare_dir(const sweep_spec *spec, const char *dir, sim_error *err)
{
    char sub[4200];
    if (make_dir(dir, err) != 0)
        return -1;
    snprintf(sub, sizeof(sub), "%s/runs", dir);
    if (make_dir(sub, err) != 0)
        return -1;
    snprintf(sub, sizeof(sub), "%s/logs", dir);
    if (make_dir(sub, err) != 0)
        return -1;
    return write_runs_tsv(spec, dir, err);
}
