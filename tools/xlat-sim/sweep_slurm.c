/*
 * A sweep as a Slurm job array: DIR/sweep.sbatch runs one point per array
 * task (its index is the task's), DIR/merge.sbatch merges once every task
 * succeeded (--dependency=afterok). The scripts name this program, the
 * spec and DIR by absolute path, so the cluster's nodes need them at the
 * same place (a shared file system).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sweep.h"

/* A word for sh: single quotes, each ' written as '\''. */
static void put_quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++)
        *s == '\'' ? fputs("'\\''", f) : fputc(*s, f);
    fputc('\'', f);
}

static int write_script(const sweep_exec *x, const char *name, bool array)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/%s", x->dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "xlat-sim sweep: %s: cannot write: %s\n", path, strerror(errno));
        return 2;
    }
    fprintf(f, "#!/bin/sh\n# Written by xlat-sim sweep (doc/sweeps.md).\n");
    if (array) {
        fprintf(f, "#SBATCH --job-name=xlat-sweep\n#SBATCH --array=0-%zu\n", x->spec->nruns - 1);
        fprintf(f, "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n");
        fprintf(f, "#SBATCH --output=%s/logs/slurm-%%A_%%a.out\n", x->dir);
    } else {
        fprintf(f, "#SBATCH --job-name=xlat-sweep-merge\n#SBATCH --ntasks=1\n");
        fprintf(f, "#SBATCH --output=%s/merge.out\n", x->dir);
    }
    fputs("exec ", f);
    put_quoted(f, x->self);
    fputs(" sweep ", f);
    put_quoted(f, x->spec->path);
    fputs(" --out ", f);
    put_quoted(f, x->dir);
    fputs(array ? " --run-index \"$SLURM_ARRAY_TASK_ID\"\n" : " --merge\n", f);
    if (fclose(f) != 0) {
        fprintf(stderr, "xlat-sim sweep: %s: cannot write: %s\n", path, strerror(errno));
        return 2;
    }
    return 0;
}

/* Runs `cmd` and reads the job id sbatch --parsable prints ("ID" or
 * "ID;cluster"); 0 when it failed. */
static unsigned long sbatch(const char *cmd)
{
    char line[256] = "";
    unsigned long id = 0;
    FILE *p = popen(cmd, "r");
    if (!p)
        return 0;
    if (fgets(line, sizeof(line), p) && sscanf(line, "%lu", &id) != 1)
        id = 0;
    if (pclose(p) != 0)
        id = 0;
    return id;
}

static int submit(const sweep_exec *x)
{
    char cmd[9000], ids[4200];
    snprintf(cmd, sizeof(cmd), "sbatch --parsable '%s/sweep.sbatch'", x->dir);
    unsigned long array = sbatch(cmd);
    if (!array) {
        fprintf(stderr, "xlat-sim sweep: %s failed\n", cmd);
        return 2;
    }
    snprintf(cmd, sizeof(cmd), "sbatch --parsable --dependency=afterok:%lu '%s/merge.sbatch'",
             array, x->dir);
    unsigned long merge = sbatch(cmd);
    if (!merge) {
        fprintf(stderr, "xlat-sim sweep: %s failed (the array job %lu is queued)\n", cmd, array);
        return 2;
    }
    printf("xlat-sim sweep: submitted the array job %lu (%zu runs) and the merge job %lu\n",
           array, x->spec->nruns, merge);
    snprintf(ids, sizeof(ids), "%s/slurm.jobs", x->dir);
    FILE *f = fopen(ids, "w");
    if (!f || fprintf(f, "array %lu\nmerge %lu\n", array, merge) < 0 || fclose(f) != 0) {
        fprintf(stderr, "xlat-sim sweep: %s: cannot write the job ids\n", ids);
        return 2;
    }
    return 0;
}

int sweep_slurm(const sweep_exec *x, bool do_submit)
{
    if (write_script(x, "sweep.sbatch", true) != 0 || write_script(x, "merge.sbatch", false) != 0)
        return 2;
    if (do_submit)
        return submit(x);
    printf("xlat-sim sweep: %zu runs; submit them with:\n"
           "  jid=$(sbatch --parsable '%s/sweep.sbatch') &&\n"
           "  sbatch --dependency=afterok:\"${jid%%%%;*}\" '%s/merge.sbatch'\n",
           x->spec->nruns, x->dir, x->dir);
    return 0;
}
