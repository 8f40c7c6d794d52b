/*
 * compare's table: one column per run, the same workload through each, the
 * first run the reference of the speed-up (its cycles over each run's).
 */
#include "report.h"

#define COL 16

typedef struct row {
    const char *name;
    int kind;                   /* 0: count, 1: rate, 2: mean, 3: speed-up */
    uint64_t (*count)(const sim_summary *s);
    double (*value)(const sim_summary *s);
} row;

static uint64_t cycles(const sim_summary *s) { return s->cycles; }
static uint64_t requests(const sim_summary *s) { return s->requests; }
static uint64_t p99(const sim_summary *s) { return s->lat_p99; }
static uint64_t remote_hits(const sim_summary *s) { return s->remote_hits + s->ring_hits; }
static uint64_t iommu_walks(const sim_summary *s) { return s->iommu_walks; }
static uint64_t gmmu_walks(const sim_summary *s) { return s->gmmu_walks; }
static uint64_t pt_reads(const sim_summary *s) { return s->pt_reads; }
static uint64_t coalesced(const sim_summary *s) { return s->coalesced; }
static uint64_t pec(const sim_summary *s) { return s->pec_answers; }
static uint64_t mcm(const sim_summary *s) { return s->mcm_local_hits + s->mcm_peer_hits; }
static double mean(const sim_summary *s) { return s->lat_mean; }
static double l1(const sim_summary *s) { return sim_rate(s->l1.hits, s->l1.accesses); }
static double l2(const sim_summary *s) { return sim_rate(s->l2.hits, s->l2.accesses); }
static double iommu(const sim_summary *s) { return sim_rate(s->iommu_tlb.hits, s->iommu_tlb.accesses); }

static const row rows[] = {
    {"requests", 0, requests, NULL},
    {"cycles", 0, cycles, NULL},
    {"speed-up", 3, cycles, NULL},
    {"latency mean", 2, NULL, mean},
    {"latency p99", 0, p99, NULL},
    {"L1 hit rate", 1, NULL, l1},
    {"L2 hit rate", 1, NULL, l2},
    {"IOMMU TLB hit rate", 1, NULL, iommu},
    {"remote L2 hits", 0, remote_hits, NULL},
    {"IOMMU walks", 0, iommu_walks, NULL},
    {"GMMU walks", 0, gmmu_walks, NULL},
    {"page-table reads", 0, pt_reads, NULL},
    {"coalesced walks", 0, coalesced, NULL},
    {"PEC answers", 0, pec, NULL},
    {"F-Barre hits", 0, mcm, NULL},
};

static void cell(FILE *f, const row *r, const sim_summary *s, const sim_summary *ref)
{
    switch (r->kind) {
    case 0: fprintf(f, " %*llu", COL, (unsigned long long)r->count(s)); break;
    case 1: fprintf(f, " %*.2f%%", COL - 1, 100.0 * r->value(s)); break;
    case 2: fprintf(f, " %*.1f", COL, r->value(s)); break;
    default:
        fprintf(f, " %*.3fx", COL - 1, s->cycles ? (double)ref->cycles / (double)s->cycles : 0.0);
    }
}

void sim_print_compare(FILE *f, const sim_summary *s, size_t n)
{
    fprintf(f, "xlat-sim compare: %s, %s mode, seed %llu\n\n", s[0].source, s[0].mode,
            (unsigned long long)s[0].seed);
    fprintf(f, "%-20s", "");
    for (size_t i = 0; i < n; i++)
        fprintf(f, " %*s", COL, s[i].preset);
    fputc('\n', f);
    for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
        fprintf(f, "%-20s", rows[k].name);
        for (size_t i = 0; i < n; i++)
            cell(f, &rows[k], &s[i], &s[0]);
        fputc('\n', f);
    }
}
