/*
 * A spec's [plot NAME]: DIR/NAME.dat (a row per value of x in the spec's
 * order, a column per series, each the mean of y over the runs that share
 * them, e.g. the seeds), DIR/NAME.gp (a gnuplot script that reads it from
 * DIR) and, when gnuplot is installed, DIR/NAME.png. x is shown as
 * categories, so that enum knobs (lru, plru) plot like numbers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep.h"

static long find_column(const sweep_table *t, const char *name)
{
    for (size_t c = 0; c < t->ncolumns; c++)
        if (!strcmp(t->column[c], name))
            return (long)c;
    return -1;
}

/* The distinct values of column c, in the order rows give them. */
static size_t distinct(const sweep_table *t, long c, const char **out, size_t max)
{
    size_t n = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        size_t i = 0;
        while (i < n && strcmp(out[i], t->cell[r][c]))
            i++;
        if (i == n && n < max)
            out[n++] = t->cell[r][c];
    }
    return n;
}

static const sweep_knob *knob_of(const sweep_spec *spec, const char *name)
{
    for (size_t k = 0; k < spec->nknobs; k++)
        if (!strcmp(spec->knob[k].name, name))
            return &spec->knob[k];
    return NULL;
}

/* The mean of y over the rows whose x and series are these ("-": none). */
static void mean_cell(const sweep_table *t, const long col[3], const char *x, const char *s,
                      char *buf, size_t len)
{
    double sum = 0;
    size_t n = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        char **row = t->cell[r];
        if (!strcmp(row[col[0]], x) && !strcmp(row[col[2]], s) && row[col[1]]) {
            sum += strtod(row[col[1]], NULL);
            n++;
        }
    }
    if (n)
        snprintf(buf, len, "%.9g", sum / (double)n);
    else
        snprintf(buf, len, "-");
}

static int write_dat(const sweep_spec *spec, const sweep_plot *p, const sweep_table *t,
                     const long col[3], const char *path, size_t *nseries)
{
    const char *series[256];
    const sweep_list *xs = &knob_of(spec, p->x)->values;
    *nseries = distinct(t, col[2], series, 256);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "%s", p->x);
    for (size_t s = 0; s < *nseries; s++)
        fprintf(f, " %s", series[s]);
    fputc('\n', f);
    for (size_t i = 0; i < xs->n; i++) {
        fprintf(f, "%s", xs->word[i]);
        for (size_t s = 0; s < *nseries; s++) {
            char cell[64];
            mean_cell(t, col, xs->word[i], series[s], cell, sizeof(cell));
            fprintf(f, " %s", cell);
        }
        fputc('\n', f);
    }
    return fclose(f);
}

static int write_gp(const sweep_plot *p, const char *path, size_t nseries, bool cairo)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "# Written by xlat-sim sweep: run in its folder (gnuplot %s.gp).\n", p->name);
    fprintf(f, "set terminal %s\n", cairo ? "pngcairo size 900,520 font \",10\""
                                          : "png size 900,520");
    fprintf(f, "set output '%s.png'\n", p->name);
    fprintf(f, "set title \"%s: %s by %s, a line per %s\" noenhanced\n", p->name, p->y, p->x,
            p->series);
    fprintf(f, "set xlabel '%s' noenhanced\nset ylabel '%s' noenhanced\n", p->x, p->y);
    fprintf(f, "set key outside right top noenhanced\nset grid\nset datafile missing '-'\n");
    fprintf(f, "plot for [i=2:%zu] '%s.dat' using i:xtic(1) with linespoints lw 2 "
               "title columnheader(i)\n", nseries + 1, p->name);
    return fclose(f);
}

static bool have_gnuplot(bool *cairo)
{
    *cairo = system("gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1") == 0;
    return *cairo || system("command -v gnuplot >/dev/null 2>&1") == 0;
}

int sweep_plot_draw(const sweep_spec *spec, const sweep_plot *p, const sweep_table *t,
                    const char *dir, sim_error *err)
{
    long col[3] = {find_column(t, p->x), find_column(t, p->y), find_column(t, p->series)};
    if (col[1] < 0 || col[1] <= find_column(t, "seed") + (long)spec->nknobs)
        return sim_fail(err, "[plot %s] y = %s is not a metric of sweep.csv (its columns after "
                        "the knobs: latency.mean, cycles, l2.hit_rate, ...)", p->name, p->y);
    char dat[4200], gp[4200], cmd[9000];
    size_t nseries;
    bool cairo = false, drawn = have_gnuplot(&cairo);
    snprintf(dat, sizeof(dat), "%s/%s.dat", dir, p->name);
    snprintf(gp, sizeof(gp), "%s/%s.gp", dir, p->name);
    if (write_dat(spec, p, t, col, dat, &nseries) != 0 || write_gp(p, gp, nseries, cairo) != 0)
        return sim_fail(err, "%s: cannot write %s.dat or %s.gp", dir, p->name, p->name);
    if (!drawn)
        return 0; /* the .dat and .gp are there for a machine that has gnuplot */
    snprintf(cmd, sizeof(cmd), "cd '%s' && gnuplot '%s.gp'", dir, p->name);
    if (system(cmd) != 0)
        return sim_fail(err, "[plot %s]: gnuplot failed on %s", p->name, gp);
    return 0;
}
