/*
 * The local executors: a pool of at most N processes of xlat-sim itself
 * (fork, exec, waitpid; serial is a pool of one), or GNU parallel with a
 * job log read back for the failures. A run is always a process of its
 * own, so that a crash or an exit in one run cannot take the sweep down.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sweep.h"

/* The last non-empty line of a run's log: usually the message that ends it. */
static void last_log_line(const char *path, char *buf, size_t len)
{
    char line[1024];
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    while (fgets(line, sizeof(line), f))
        if (line[0] != '\n')
            snprintf(buf, len, "%s", line);
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
}

void sweep_report_failure(const sweep_exec *x, size_t index, int status)
{
    char what[1024], log[4200], last[1024], how[64];
    sweep_point pt;
    sweep_point_at(x->spec, index, &pt);
    sweep_point_describe(x->spec, &pt, what, sizeof(what));
    sweep_run_path(x->dir, index, "log", log, sizeof(log));
    last_log_line(log, last, sizeof(last));
    if (WIFSIGNALED(status))
        snprintf(how, sizeof(how), "killed by signal %d", WTERMSIG(status));
    else
        snprintf(how, sizeof(how), "exit status %d", WEXITSTATUS(status));
    fprintf(stderr, "xlat-sim sweep: run %zu (%s) failed: %s; %s%s%s\n", index, what, how, log,
            last[0] ? ": " : "", last);
}

static pid_t start_run(const sweep_exec *x, size_t index)
{
    char idx[32];
    snprintf(idx, sizeof(idx), "%zu", index);
    pid_t pid = fork();
    if (pid == 0) {
        char *argv[] = {(char *)x->self, "sweep", (char *)x->spec->path, "--out", (char *)x->dir,
                        "--run-index", idx, NULL};
        execv(x->self, argv);
        fprintf(stderr, "xlat-sim sweep: cannot run %s: %s\n", x->self, strerror(errno));
        _exit(127);
    }
    return pid;
}

/* Waits for one child; records it and reports it when it failed. */
static int reap(const sweep_exec *x, pid_t *pids, size_t n, size_t *failed)
{
    int status;
    pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (pids[i] != pid)
            continue;
        pids[i] = 0;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            sweep_report_failure(x, i, status);
            (*failed)++;
        }
    }
    return 0;
}

int sweep_exec_pool(const sweep_exec *x)
{
    size_t n = x->spec->nruns, running = 0, failed = 0;
    pid_t *pids = calloc(n, sizeof(*pids));
    if (!pids) {
        fprintf(stderr, "xlat-sim sweep: out of memory\n");
        return 2;
    }
    fflush(NULL); /* nothing buffered may be written twice by the children */
    for (size_t i = 0; i < n || running > 0;) {
        if (i < n && running < x->jobs) {
            pids[i] = start_run(x, i);
            if (pids[i] < 0) {
                fprintf(stderr, "xlat-sim sweep: fork: %s\n", strerror(errno));
                pids[i] = 0;
                failed += n - i;
                n = i; /* start no more; wait for those running */
                continue;
            }
            i++, running++;
            continue;
        }
        if (reap(x, pids, x->spec->nruns, &failed) != 0)
            break;
        running--;
    }
    free(pids);
    if (failed)
        fprintf(stderr, "xlat-sim sweep: %zu of %zu runs failed\n", failed, x->spec->nruns);
    return failed ? 1 : 0;
}

bool sweep_have_gnu_parallel(void)
{
    char line[256] = "";
    FILE *p = popen("parallel --version 2>/dev/null", "r");
    if (!p)
        return false;
    if (!fgets(line, sizeof(line), p))
        line[0] = '\0';
    pclose(p);
    return strncmp(line, "GNU parallel", 12) == 0;
}

/* The job log: Seq Host Starttime JobRuntime Send Receive Exitval Signal
 * Command; the command's last word is the run's index. */
static size_t read_joblog(const sweep_exec *x, const char *path)
{
    char line[8192];
    size_t failed = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return x->spec->nruns;
    while (fgets(line, sizeof(line), f)) {
        int exitval, sig;
        char *cmd = NULL;
        if (sscanf(line, "%*s %*s %*s %*s %*s %*s %d %d", &exitval, &sig) != 2)
            continue; /* the header */
        line[strcspn(line, "\n")] = '\0';
        cmd = strrchr(line, ' ');
        if ((exitval || sig) && cmd) {
            size_t index = strtoul(cmd + 1, NULL, 10);
            sweep_report_failure(x, index, sig ? sig : exitval << 8);
            failed++;
        }
    }
    fclose(f);
    return failed;
}

int sweep_exec_parallel(const sweep_exec *x)
{
    char jobs[32], joblog[4200];
    size_t n = x->spec->nruns;
    snprintf(jobs, sizeof(jobs), "%u", x->jobs);
    snprintf(joblog, sizeof(joblog), "%s/parallel.joblog", x->dir);
    unlink(joblog);
    const char *head[] = {"parallel", "--will-cite", "--quote", "--jobs", jobs, "--joblog", joblog,
                          x->self, "sweep", x->spec->path, "--out", x->dir, "--run-index", "{}",
                          ":::"};
    size_t nhead = sizeof(head) / sizeof(head[0]);
    char **argv = calloc(nhead + n + 1, sizeof(*argv));
    char *numbers = malloc(n * 24 + 1);
    if (!argv || !numbers) {
        free(argv), free(numbers);
        fprintf(stderr, "xlat-sim sweep: out of memory\n");
        return 2;
    }
    memcpy(argv, head, sizeof(head));
    for (size_t i = 0; i < n; i++) {
        argv[nhead + i] = numbers + i * 24;
        snprintf(argv[nhead + i], 24, "%zu", i);
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        execvp("parallel", argv);
        fprintf(stderr, "xlat-sim sweep: cannot run GNU parallel: %s\n", strerror(errno));
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0)
        status = 127 << 8;
    free(argv), free(numbers);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        fprintf(stderr, "xlat-sim sweep: GNU parallel did not run\n");
        return 2;
    }
    size_t failed = read_joblog(x, joblog);
    if (failed)
        fprintf(stderr, "xlat-sim sweep: %zu of %zu runs failed\n", failed, n);
    return failed ? 1 : 0;
}
