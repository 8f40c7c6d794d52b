/* What a run measures per answer: latency distribution, outcomes, tenants. */
#include <stdlib.h>
#include <string.h>

#include "run.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* A latency that does not fit the exact counts is kept; if even that
 * fails, the maximum and the mean still count it. */
static void latency_add(sim_latency *l, uint64_t cycles)
{
    l->count++;
    l->sum += cycles;
    if (cycles > l->max)
        l->max = cycles;
    if (cycles < SIM_LAT_EXACT) {
        l->exact[cycles]++;
        return;
    }
    if (l->ntail == l->tail_cap) {
        size_t cap = l->tail_cap ? l->tail_cap * 2 : 1024;
        uint64_t *grown = realloc(l->tail, cap * sizeof(*grown));
        if (!grown)
            return;
        l->tail = grown;
        l->tail_cap = cap;
    }
    l->tail[l->ntail++] = cycles;
}

uint64_t sim_latency_quantile(const sim_latency *l, double q)
{
    if (!l->count)
        return 0;
    uint64_t rank = (uint64_t)(q * (double)(l->count - 1)); /* 0-based, nearest below */
    for (uint64_t c = 0, seen = 0; c < SIM_LAT_EXACT; c++) {
        seen += l->exact[c];
        if (seen > rank)
            return c;
        if (c == SIM_LAT_EXACT - 1) {
            rank -= seen;
            break;
        }
    }
    if (!l->ntail)
        return l->max;
    return l->tail[rank < l->ntail ? rank : l->ntail - 1];
}

static void outcome_add(sim_result *res, const char *name)
{
    for (size_t i = 0; i < res->noutcomes; i++)
        if (strcmp(res->outcome[i].name, name) == 0) {
            res->outcome[i].n++;
            return;
        }
    if (res->noutcomes == SIM_MAX_OUTCOMES)
        return; /* 64 GPUs' REMOTE and MCM names fit: never reached */
    sim_outcome_count *o = &res->outcome[res->noutcomes++];
    snprintf(o->name, sizeof(o->name), "%s", name);
    o->n = 1;
}

static sim_tenant *tenant_of(sim_result *res, uint32_t pasid)
{
    for (size_t i = 0; i < res->ntenants; i++)
        if (res->tenant[i].pasid == pasid)
            return &res->tenant[i];
    if (res->ntenants == SIM_MAX_TENANTS)
        return NULL;
    sim_tenant *t = &res->tenant[res->ntenants++];
    *t = (sim_tenant){.pasid = pasid};
    return t;
}

static bool walked(const char *outcome)
{
    return strcmp(outcome, "IOMMU_WALK") == 0 || strcmp(outcome, "GMMU_WALK") == 0 ||
           strcmp(outcome, "PEC") == 0;
}

void sim_result_count(sim_result *res, uint32_t pasid, const char *outcome, uint64_t latency,
                      bool failed)
{
    res->requests++;
    res->faults += failed;
    latency_add(&res->lat, latency);
    outcome_add(res, outcome);
    sim_tenant *t = tenant_of(res, pasid);
    if (t) {
        t->requests++;
        t->latency_sum += latency;
        if (latency > t->latency_max)
            t->latency_max = latency;
        t->walked += walked(outcome);
    }
}

/* The warm-up is over: what was counted so far is forgotten. */
void sim_result_restart(sim_result *res, uint64_t now)
{
    free(res->lat.tail);
    res->warmup += res->requests;
    res->requests = 0;
    res->faults = 0;
    memset(&res->lat, 0, sizeof(res->lat));
    res->noutcomes = 0;
    res->ntenants = 0;
    res->start_cycle = now;
}

void sim_result_finish(sim_result *res)
{
    if (res->lat.ntail)
        qsort(res->lat.tail, res->lat.ntail, sizeof(*res->lat.tail), cmp_u64);
}

void sim_result_free(sim_result *res)
{
    free(res->lat.tail);
    res->lat.tail = NULL;
    res->lat.ntail = res->lat.tail_cap = 0;
}
