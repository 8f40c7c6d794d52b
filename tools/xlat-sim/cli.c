/*
 * The actions of xlat-sim's command line. A configuration is built in one
 * order (preset, INI file, --set and the run options in command-line
 * order); every input is checked, and the units built, before the first
 * request is simulated: a bad value exits with status 2 and a message
 * naming where it came from.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "job.h"
#include "report.h"

/* One run: its configuration, world, result and summary. */
typedef struct sim_job {
    sim_config cfg;
    sim_world w;
    sim_result res;
    sim_summary sum;
    char source[128];
    bool built;
} sim_job;

int sim_cli_add_preset(sim_cli *cli, const char *name)
{
    if (cli->npresets == SIM_CLI_MAX_PRESETS)
        return -1;
    cli->preset[cli->npresets++] = name;
    return 0;
}

int sim_cli_add_set(sim_cli *cli, const char *arg)
{
    if (cli->nsets == SIM_CLI_MAX_SETS || !(cli->set[cli->nsets] = strdup(arg)))
        return -1;
    cli->nsets++;
    return 0;
}

void sim_cli_free(sim_cli *cli)
{
    for (size_t i = 0; i < cli->nsets; i++)
        free(cli->set[i]);
    cli->nsets = 0;
}

int sim_cli_config(const sim_cli *cli, size_t i, sim_config *cfg, sim_error *err)
{
    if (i < cli->npresets) {
        if (sim_preset_apply(cfg, cli->preset[i], err) != 0)
            return -1;
        snprintf(cfg->preset, sizeof(cfg->preset), "%s", cli->preset[i]);
    } else {
        sim_config_defaults(cfg);
    }
    if (cli->config && sim_config_load_ini(cfg, cli->config, err) != 0)
        return -1;
    for (size_t k = 0; k < cli->nsets; k++)
        if (sim_config_set_arg(cfg, cli->set[k], err) != 0)
            return -1;
    return 0;
}

/* The command line's --trace or --workload, else the configuration's. */
static int open_source(const sim_cli *cli, const sim_config *cfg, sim_source **src, sim_error *err)
{
    sim_shape shape = sim_config_shape(cfg);
    const char *trace = cli->trace ? cli->trace
                      : !cli->workload && cfg->run.trace[0] ? cfg->run.trace : NULL;
    if (trace)
        return sim_trace_open(trace, &shape, src, err);
    const char *spec = cli->workload ? cli->workload : cfg->run.workload;
    if (!spec[0])
        return sim_fail(err, "no workload: give --workload, --trace or [run] workload");
    return sim_workload_open(spec, &shape, src, err);
}

static FILE *open_log(const sim_cli *cli, const sim_job *job, bool suffix, sim_error *err)
{
    char path[1200];
    if (!cli->log)
        return NULL;
    if (strcmp(cli->log, "-") == 0)
        return stdout;
    snprintf(path, sizeof(path), suffix ? "%s.%s" : "%s", cli->log, job->cfg.preset);
    FILE *f = fopen(path, "w");
    if (!f)
        sim_fail(err, "%s: cannot write the request log", path);
    return f;
}

/* Configures, builds and runs job `i`: 2 for bad input (nothing was
 * simulated), 1 for a failed run, 0 when done. */
static int run_job(const sim_cli *cli, size_t i, sim_job *job, bool suffix)
{
    sim_error err = {{0}};
    sim_source *src = NULL;
    int status = 2;
    if (sim_cli_config(cli, i, &job->cfg, &err) != 0 || open_source(cli, &job->cfg, &src, &err) != 0)
        goto out;
    snprintf(job->source, sizeof(job->source), "%s", src->name);
    if (sim_world_build(&job->w, &job->cfg, &err) != 0)
        goto out;
    job->built = true;
    status = 1;
    FILE *log = open_log(cli, job, suffix, &err);
    if (cli->log && !log)
        goto out;
    sim_run_opts opts = {.log = log, .progress = cli->progress};
    int rc = sim_world_map_objects(&job->w, src->objects, src->nobjects, &err);
    if (rc == 0)
        rc = sim_run(&job->w, src, &opts, &job->res, &err);
    if (log && log != stdout)
        fclose(log);
    if (rc == 0) {
        sim_summarize(&job->w, &job->res, job->source, &job->sum);
        status = 0;
    }
out:
    sim_source_close(src);
    if (status)
        fprintf(stderr, "xlat-sim: %s\n", err.msg);
    return status;
}

static void free_jobs(sim_job *jobs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (jobs[i].built)
            sim_world_destroy(&jobs[i].w);
        sim_result_free(&jobs[i].res);
    }
    free(jobs);
}

static bool file_is_new(const char *path)
{
    struct stat st;
    return stat(path, &st) != 0 || st.st_size == 0;
}

/* --json and --csv of `n` finished jobs. */
static int write_outputs(const sim_cli *cli, sim_job *jobs, size_t n)
{
    sim_error err = {{0}};
    if (cli->csv) {
        bool header = file_is_new(cli->csv);
        FILE *f = strcmp(cli->csv, "-") == 0 ? stdout : fopen(cli->csv, "a");
        if (!f) {
            fprintf(stderr, "xlat-sim: %s: cannot write\n", cli->csv);
            return 1;
        }
        for (size_t i = 0; i < n; i++)
            sim_csv_row(f, &jobs[i].sum, header && i == 0);
        if (f != stdout)
            fclose(f);
    }
    if (!cli->json)
        return 0;
    json_t *root = n == 1 ? sim_json(&jobs[0].w, &jobs[0].sum) : json_pack("{s:[]}", "runs");
    for (size_t i = 0; n > 1 && root && i < n; i++)
        json_array_append_new(json_object_get(root, "runs"), sim_json(&jobs[i].w, &jobs[i].sum));
    int rc = sim_json_write(root, cli->json, &err);
    json_decref(root);
    if (rc != 0)
        fprintf(stderr, "xlat-sim: %s\n", err.msg);
    return rc != 0;
}

static int run_jobs(sim_cli *cli, size_t n, bool compare)
{
    sim_job *jobs = calloc(n, sizeof(*jobs));
    if (!jobs) {
        fprintf(stderr, "xlat-sim: out of memory\n");
        return 1;
    }
    int status = 0;
    for (size_t i = 0; i < n && !status; i++)
        status = run_job(cli, i, &jobs[i], compare);
    if (!status && !cli->quiet) {
        if (compare) {
            sim_summary s[SIM_CLI_MAX_PRESETS];
            for (size_t i = 0; i < n; i++)
                s[i] = jobs[i].sum;
            sim_print_compare(stdout, s, n);
        } else {
            sim_print_summary(stdout, &jobs[0].sum);
        }
    }
    if (!status)
        status = write_outputs(cli, jobs, n);
    free_jobs(jobs, n);
    sim_cli_free(cli);
    return status;
}

int sim_cli_run(sim_cli *cli) { return run_jobs(cli, 1, false); }

/* compare runs one workload through every preset: the command line's, else
 * the first preset's (its configuration's trace or workload). */
int sim_cli_compare(sim_cli *cli)
{
    static sim_config first;
    sim_error err = {{0}};
    if (!cli->trace && !cli->workload) {
        if (sim_cli_config(cli, 0, &first, &err) != 0) {
            fprintf(stderr, "xlat-sim: %s\n", err.msg);
            sim_cli_free(cli);
            return 2;
        }
        if (first.run.trace[0])
            cli->trace = first.run.trace;
        else
            cli->workload = first.run.workload;
    }
    return run_jobs(cli, cli->npresets, true);
}

int sim_cli_convert(const sim_cli *cli)
{
    sim_config cfg;
    sim_config_defaults(&cfg);
    sim_shape shape = sim_config_shape(&cfg);
    shape.gpus = 64;   /* a converter keeps every GPU and CU a trace names */
    shape.cus = 1024;
    sim_error err = {{0}};
    if (sim_trace_convert(cli->convert_in, cli->convert_out, &shape, &err) != 0) {
        fprintf(stderr, "xlat-sim: %s\n", err.msg);
        return 2;
    }
    return 0;
}

int sim_cli_list_presets(FILE *f)
{
    size_t n;
    const sim_preset_info *p = sim_presets(&n);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%-26s %s\n%-26s   %s\n%-26s   workload: %s\n", p[i].name, p[i].summary, "",
                p[i].cite, "", p[i].workload);
    return 0;
}

int sim_cli_list_workloads(FILE *f)
{
    size_t n;
    const sim_workload_info *w = sim_workloads(&n);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%-16s %s\n%-16s   parameters: %s\n", w[i].name, w[i].summary, "", w[i].params);
    return 0;
}

int sim_cli_list_knobs(FILE *f)
{
    size_t n;
    const sim_knob_info *k = sim_knobs(&n);
    sim_config cfg;
    sim_config_defaults(&cfg);
    for (size_t i = 0; i < n; i++) {
        char def[1100] = "";
        sim_config_get(&cfg, k[i].section, k[i].key, def, sizeof(def));
        fprintf(f, "%s.%s = %s   (%s) %s\n", k[i].section, k[i].key, def, k[i].range, k[i].help);
    }
    return 0;
}
