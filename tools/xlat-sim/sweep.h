/*
 * xlat-sim sweep SPEC: a grid of runs declared in an INI file (presets x
 * workloads x knob values x seeds), run one process per run (serially, by
 * a pool of processes, by GNU parallel or as a Slurm job array), then
 * merged into one CSV and the spec's plots (doc/sweeps.md).
 *
 * Every run is `xlat-sim sweep SPEC --out DIR --run-index I`: whatever runs
 * it, a run writes DIR/runs/NNNN.json and DIR/logs/NNNN.log and nothing
 * else, so the executors differ only in who starts the processes.
 */
#ifndef XLAT_SIM_SWEEP_H
#define XLAT_SIM_SWEEP_H

#include <stddef.h>

#include "sim.h"

#define SWEEP_MAX_KNOBS 16
#define SWEEP_MAX_PLOTS 16

/* Words of a list value ("a b c", or the same key on several lines). */
typedef struct sweep_list {
    char **word;
    size_t n;
} sweep_list;

typedef struct sweep_knob {
    char name[128];             /* "section.key" */
    sweep_list values;
} sweep_knob;

typedef struct sweep_plot {
    char name[64];              /* [plot NAME]: DIR/NAME.dat, .gp, .png */
    char x[128];                /* a knob of the grid */
    char y[128];                /* a metric column of sweep.csv */
    char series[128];           /* preset, workload, seed or a knob (default preset) */
} sweep_plot;

typedef struct sweep_spec {
    char path[4096];            /* absolute: the runs read it again */
    sweep_list presets, workloads, seeds;
    char requests[32], warmup[32], mode[32];   /* "" when the spec leaves them */
    sweep_knob knob[SWEEP_MAX_KNOBS];
    size_t nknobs;
    sweep_plot plot[SWEEP_MAX_PLOTS];
    size_t nplots;
    size_t nruns;
} sweep_spec;

/* One point of the grid: pointers into the spec's lists; workload and
 * seed are NULL when the spec gives none (the preset's own). */
typedef struct sweep_point {
    size_t index;
    const char *preset, *workload, *seed;
    const char *knob[SWEEP_MAX_KNOBS];
} sweep_point;

/* sweep_spec.c: reads and checks the spec (every point's configuration is
 * built once); -1 with err naming the file, line and what is wrong. */
int sweep_spec_load(sweep_spec *spec, const char *path, sim_error *err);
void sweep_spec_free(sweep_spec *spec);
/* Point `index` (< spec->nruns): presets vary slowest, then workloads,
 * then the knobs in the spec's order, seeds fastest. */
void sweep_point_at(const sweep_spec *spec, size_t index, sweep_point *pt);
/* The point's configuration: the preset, the spec's requests, warmup and
 * mode, the seed, then the knobs. */
int sweep_point_config(const sweep_spec *spec, const sweep_point *pt, sim_config *cfg,
                       sim_error *err);
/* "preset=A workload=W seed=S l2.entries=512": for messages. */
void sweep_point_describe(const sweep_spec *spec, const sweep_point *pt, char *buf, size_t len);

/* sweep_run.c: the run of one point, in this process (--run-index). */
int sweep_run_one(const sweep_spec *spec, const char *dir, size_t index);
/* DIR, DIR/runs, DIR/logs and DIR/runs.tsv; -1 with err. */
int sweep_prepare_dir(const sweep_spec *spec, const char *dir, sim_error *err);
/* DIR/runs/NNNN.json and DIR/logs/NNNN.log. */
void sweep_run_path(const char *dir, size_t index, const char *what, char *buf, size_t len);

/* sweep_exec.c: the local executors. 0 when every run succeeded, 1 when
 * some failed (each reported on stderr with its index, parameters, exit
 * status and log), 2 when the executor itself cannot run. */
typedef enum sweep_executor {
    SWEEP_AUTO, SWEEP_SERIAL, SWEEP_POOL, SWEEP_PARALLEL, SWEEP_SLURM
} sweep_executor;

typedef struct sweep_exec {
    const sweep_spec *spec;
    const char *dir;            /* absolute */
    const char *self;           /* this program, absolute */
    unsigned jobs;              /* processes at once */
} sweep_exec;

int sweep_exec_pool(const sweep_exec *x);
int sweep_exec_parallel(const sweep_exec *x);
/* True when `parallel` on PATH is GNU parallel (moreutils has another). */
bool sweep_have_gnu_parallel(void);
/* Reports a failed run: index, parameters, how it ended, its log's last line. */
void sweep_report_failure(const sweep_exec *x, size_t index, int status);

/* sweep_slurm.c: DIR/sweep.sbatch and DIR/merge.sbatch; with `submit`,
 * sbatch both (the merge after the array, afterok), else print the
 * commands. 0, or 2 with a message on stderr. */
int sweep_slurm(const sweep_exec *x, bool submit);

/* sweep_merge.c: DIR/sweep.csv and the plots; 0, or 1 when a run is
 * missing (each reported) or a plot cannot be drawn. */
int sweep_merge(const sweep_spec *spec, const char *dir);

/* sweep_plot.c: one plot from the merged table. */
typedef struct sweep_table {
    char **column;              /* names */
    size_t ncolumns;
    char ***cell;               /* cell[row][column], NULL when a run has no such field */
    size_t nrows;
} sweep_table;

int sweep_plot_draw(const sweep_spec *spec, const sweep_plot *p, const sweep_table *t,
                    const char *dir, sim_error *err);

/* sweep_cli.c: `xlat-sim sweep ...` (argv[0] is "sweep"). */
int sweep_main(int argc, char **argv);

#endif /* XLAT_SIM_SWEEP_H */
