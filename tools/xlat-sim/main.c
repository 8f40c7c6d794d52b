/*
 * xlat-sim's command line: run one configuration, compare several on the
 * same workload, sweep a grid of them (sweep*.c), convert a trace, or list
 * what there is. Exit status: 0
 * done, 1 the run failed, 2 a bad command line, configuration or input
 * (reported before anything is simulated).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "sweep.h"

static const char usage_text[] =
    "usage: xlat-sim [--preset NAME | --config FILE.ini] [--set section.key=value]...\n"
    "                [--trace FILE | --workload NAME[:k=v,...]] [--requests N] [--warmup N]\n"
    "                [--seed S] [--mode timed|functional] [--json FILE] [--csv FILE]\n"
    "                [--log-requests FILE] [--quiet]\n"
    "       xlat-sim compare --preset A --preset B ... [same options]\n"
    "       xlat-sim sweep SPEC --out DIR [--jobs N] [--executor serial|pool|parallel|slurm]\n"
    "                [--submit] [--run-index I | --merge]\n"
    "       xlat-sim convert IN OUT\n"
    "       xlat-sim --list-presets | --list-workloads | --list-knobs | --help | --version\n";

static const char help_text[] =
    "\n"
    "Runs GPU address-translation configurations of libxlat on synthetic workloads or\n"
    "traces and reports hit rates, walks and latencies.\n"
    "\n"
    "options:\n"
    "  --preset NAME          start from a paper's configuration (--list-presets)\n"
    "  --config FILE          read an INI file of [section] key = value (after the preset)\n"
    "  --set SECTION.KEY=VAL  set one knob (after the INI file; --list-knobs)\n"
    "  --trace FILE           read requests from a trace (text, binary, .traceg; .gz, .xz)\n"
    "  --workload SPEC        generate requests: NAME[:k=v,...] (--list-workloads)\n"
    "  --requests N           stop after N requests (0: the whole trace or the default)\n"
    "  --warmup N             reset the statistics once N requests have completed\n"
    "  --seed S               seed of the workload and of the library's random choices\n"
    "  --mode MODE            timed (default) or functional (one request at a time)\n"
    "  --json FILE            write the statistics as JSON (- for stdout)\n"
    "  --csv FILE             append one CSV row per run (the header when FILE is new)\n"
    "  --log-requests FILE    one line per request: seq gpu cu pasid vaddr outcome latency paddr\n"
    "  --quiet                no summary on stdout, no progress on stderr\n"
    "  --out DIR              sweep: the folder of the runs, sweep.csv and the plots\n"
    "  --jobs N               sweep: runs at once (default: the online cores)\n"
    "  --executor E           sweep: serial, pool, parallel (GNU parallel) or slurm\n"
    "  --submit               sweep --executor slurm: sbatch the array and the merge\n"
    "  --run-index I          sweep: run point I of the grid alone (what executors start)\n"
    "  --merge                sweep: merge the runs' JSON into sweep.csv, draw the plots\n"
    "  --list-presets         the presets, with the paper and section of each\n"
    "  --list-workloads       the workload generators and their parameters\n"
    "  --list-knobs           every configuration knob with its range\n"
    "  --help                 this text\n"
    "  --version              the version of xlat-sim and libxlat\n";

enum { OPT_LIST_PRESETS = 256, OPT_LIST_WORKLOADS, OPT_LIST_KNOBS, OPT_LOG, OPT_VERSION };

static const struct option options[] = {
    {"preset", required_argument, NULL, 'p'},
    {"config", required_argument, NULL, 'c'},
    {"set", required_argument, NULL, 's'},
    {"trace", required_argument, NULL, 't'},
    {"workload", required_argument, NULL, 'w'},
    {"requests", required_argument, NULL, 'n'},
    {"warmup", required_argument, NULL, 'W'},
    {"seed", required_argument, NULL, 'S'},
    {"mode", required_argument, NULL, 'm'},
    {"json", required_argument, NULL, 'j'},
    {"csv", required_argument, NULL, 'C'},
    {"log-requests", required_argument, NULL, OPT_LOG},
    {"quiet", no_argument, NULL, 'q'},
    {"list-presets", no_argument, NULL, OPT_LIST_PRESETS},
    {"list-workloads", no_argument, NULL, OPT_LIST_WORKLOADS},
    {"list-knobs", no_argument, NULL, OPT_LIST_KNOBS},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0}};

static int usage_error(const char *msg)
{
    fprintf(stderr, "xlat-sim: %s\n%s", msg, usage_text);
    return 2;
}

/* A --requests, --warmup, --seed or --mode is a [run] knob set from the
 * command line, checked like any other. */
static int add_run_set(sim_cli *cli, const char *key, const char *value)
{
    char arg[300];
    snprintf(arg, sizeof(arg), "run.%s=%s", key, value);
    return sim_cli_add_set(cli, arg);
}

static int parse_option(sim_cli *cli, int opt, const char *arg)
{
    switch (opt) {
    case 'p': return sim_cli_add_preset(cli, arg);
    case 'c': cli->config = arg; return 0;
    case 's': return sim_cli_add_set(cli, arg);
    case 't': cli->trace = arg; return 0;
    case 'w': cli->workload = arg; return 0;
    case 'n': return add_run_set(cli, "requests", arg);
    case 'W': return add_run_set(cli, "warmup", arg);
    case 'S': return add_run_set(cli, "seed", arg);
    case 'm': return add_run_set(cli, "mode", arg);
    case 'j': cli->json = arg; return 0;
    case 'C': cli->csv = arg; return 0;
    case OPT_LOG: cli->log = arg; return 0;
    case 'q': cli->quiet = true; return 0;
    case OPT_LIST_PRESETS: cli->action = SIM_LIST_PRESETS; return 0;
    case OPT_LIST_WORKLOADS: cli->action = SIM_LIST_WORKLOADS; return 0;
    case OPT_LIST_KNOBS: cli->action = SIM_LIST_KNOBS; return 0;
    case 'h': cli->action = SIM_HELP; return 0;
    case OPT_VERSION: cli->action = SIM_VERSION; return 0;
    default: return -1;
    }
}

static int parse(sim_cli *cli, int argc, char **argv)
{
    int first = 1;
    if (argc > 1 && strcmp(argv[1], "sweep") == 0) {
        cli->action = SIM_SWEEP;
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "compare") == 0) {
        cli->action = SIM_COMPARE;
        first = 2;
    } else if (argc > 1 && strcmp(argv[1], "convert") == 0) {
        if (argc != 4)
            return usage_error("convert takes an input and an output file");
        cli->action = SIM_CONVERT;
        cli->convert_in = argv[2];
        cli->convert_out = argv[3];
        return 0;
    }
    optind = first;
    opterr = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        if (opt == '?' || opt == ':') {
            char msg[300];
            snprintf(msg, sizeof(msg), "unknown option or missing value: %s", argv[optind - 1]);
            return usage_error(msg);
        }
        if (parse_option(cli, opt, optarg) != 0)
            return usage_error("too many --preset or --set options");
    }
    if (optind < argc) {
        char msg[300];
        snprintf(msg, sizeof(msg), "unexpected argument: %s", argv[optind]);
        return usage_error(msg);
    }
    if (cli->trace && cli->workload)
        return usage_error("--trace and --workload exclude each other");
    if (cli->action == SIM_RUN && cli->npresets > 1)
        return usage_error("one --preset per run; compare takes several");
    if (cli->action == SIM_COMPARE && cli->npresets < 2)
        return usage_error("compare needs at least two --preset");
    return 0;
}

int main(int argc, char **argv)
{
    sim_cli cli = {.action = SIM_RUN};
    int rc = parse(&cli, argc, argv);
    if (rc != 0)
        return rc;
    cli.progress = !cli.quiet && isatty(STDERR_FILENO);
    switch (cli.action) {
    case SIM_HELP: fputs(usage_text, stdout); fputs(help_text, stdout); return 0;
    case SIM_VERSION: printf("xlat-sim %s (libxlat %s)\n", XLAT_VERSION_STRING, xlat_version_string()); return 0;
    case SIM_LIST_PRESETS: return sim_cli_list_presets(stdout);
    case SIM_LIST_WORKLOADS: return sim_cli_list_workloads(stdout);
    case SIM_LIST_KNOBS: return sim_cli_list_knobs(stdout);
    case SIM_CONVERT: return sim_cli_convert(&cli);
    case SIM_COMPARE: return sim_cli_compare(&cli);
    case SIM_SWEEP: return sweep_main(argc - 1, argv + 1);
    case SIM_RUN: break;
    }
    return sim_cli_run(&cli);
}
