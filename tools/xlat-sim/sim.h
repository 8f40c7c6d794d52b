/*
 * xlat-sim: the program that runs a paper's configuration in one command.
 * The parts share this header: the configuration (every unit's config of
 * libxlat plus the run's own knobs), the request sources (trace readers and
 * workload generators) and the errors they report.
 *
 * The program is not part of libxlat: it links the library like any host
 * and may use Debian's libraries (libinih, libjansson, zlib, liblzma).
 * Nothing here prints except main.c and report.c: every other part reports
 * a failure through a sim_error, which names the file, line and key.
 */
#ifndef XLAT_SIM_H
#define XLAT_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <xlat/xlat.h>

#define SIM_ERR_LEN 512

/* What went wrong, for the user: "file:line: key: message". */
typedef struct sim_error {
    char msg[SIM_ERR_LEN];
} sim_error;

/* printf into err->msg; returns -1, so `return sim_fail(err, ...)` reads well.
 * NULL err is allowed (the message is dropped). */
int sim_fail(sim_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- the configuration --------------------------------------------------
 * Every knob of every unit the run builds, as libxlat's own config structs
 * (filled by their config_init, then by a preset, the INI file and --set, in
 * that order), and the run's knobs. The pointers inside the library structs
 * (templates, page tables, callbacks) are left NULL here: world.c sets them
 * when it builds the units. */

typedef enum sim_mode { SIM_MODE_TIMED = 0, SIM_MODE_FUNCTIONAL = 1 } sim_mode;

/* How the page table is filled: pages are mapped the first time a request
 * touches them (each mapping `map_chunk_pages` aligned pages at once), with
 * the frames the physical memory's placement chooses for the touching GPU;
 * with Barre, through the group allocator, each chunk one data object. */
typedef struct sim_memory_knobs {
    uint32_t levels;            /* page-table levels (4 or 5) */
    uint32_t page_shift;        /* 12 (4 KiB) or 21 (2 MiB) */
    xlat_placement placement;   /* local, round-robin, chunked */
    uint64_t chunk_pages;       /* chunked placement: pages per chunk */
    uint64_t frames_per_gpu;    /* frames of each GPU's (chiplet's) region */
    uint64_t map_chunk_pages;   /* pages mapped together on first touch (a Barre object) */
} sim_memory_knobs;

/* Barre Chord ("Barre Chord: Efficient Virtual Memory Translation for
 * Multi-Chip-Module GPUs"): the group allocator, the PEC buffer and the
 * IOMMU walkers' PEC logic; F-Barre units per chiplet. */
typedef struct sim_barre_knobs {
    bool enable;                /* allocate through xlat_barre_alloc, PEC logic in the IOMMU */
    bool fbarre;                /* an F-Barre unit per chiplet (needs enable) */
    xlat_barre_placement placement; /* LASP, round-robin, chunked */
    uint32_t interlv_gran;      /* LASP pages per chiplet per round */
    uint32_t max_merge;         /* 1: Barre's PTE layout; 2..: F-Barre's expansion */
    uint32_t pec_entries;       /* PEC buffer entries */
} sim_barre_knobs;

/* The host's own issue loop. */
typedef struct sim_run_knobs {
    sim_mode mode;
    uint64_t requests;          /* stop after this many (0: the whole source) */
    uint64_t warmup;            /* statistics reset after this many completed */
    uint64_t seed;              /* workloads and the context's seed */
    uint32_t issue_interval;    /* untimed sources: cycles between a CU's requests */
    uint32_t cu_outstanding;    /* untimed sources: a CU's requests in flight at most (0: no limit) */
    uint32_t pasids;            /* tenants: PASIDs 1..pasids (workloads that use them) */
    char workload[256];         /* "NAME[:k=v,...]" when no --workload/--trace is given */
    char trace[1024];           /* a trace file when no --workload/--trace is given */
} sim_run_knobs;

typedef struct sim_config {
    char preset[64];            /* the preset it started from ("" for none) */
    xlat_system_config system;  /* gpus, cus, link latencies, probe_ring, shared_l2 ... */
    xlat_tlb_config l1, l2;
    xlat_iommu_config iommu;
    xlat_walker_config iommu_walk;
    bool iommu_pwc;             /* give the IOMMU's walkers a page walk cache */
    xlat_pwc_config pwc;
    xlat_dwspp_config dwspp;    /* DWS++ parameters (iommu_walk.dwspp points here) */
    bool gmmu;                  /* mirrors system.gmmu */
    xlat_gmmu_config gmmu_cfg;
    xlat_walker_config gmmu_walk;
    xlat_fbarre_config fbarre;
    sim_memory_knobs mem;
    sim_barre_knobs barre;
    sim_run_knobs run;
} sim_config;

/* The defaults: every library config from its config_init, least-TLB's
 * Table 2 system, the run knobs' defaults. */
void sim_config_defaults(sim_config *cfg);

/* One settable knob: [section] key = value. */
typedef struct sim_knob_info {
    const char *section;
    const char *key;
    const char *range;          /* what values it takes, for messages and --list-knobs */
    const char *help;           /* one line */
} sim_knob_info;

/* Sets [section] key from the text `value`. `where` names the origin for
 * the message ("file.ini:12" or "--set"); returns 0, or -1 with err naming
 * where, section.key, the bad value and the allowed range. */
int sim_config_set(sim_config *cfg, const char *section, const char *key, const char *value,
                   const char *where, sim_error *err);
/* "section.key=value" (the --set form). */
int sim_config_set_arg(sim_config *cfg, const char *arg, sim_error *err);
/* Reads an INI file through libinih, sim_config_set() per line. */
int sim_config_load_ini(sim_config *cfg, const char *path, sim_error *err);
/* Every knob (n receives the count). */
const sim_knob_info *sim_knobs(size_t *n);
/* The knob's current value as text (for --json's "config" and for --dump-config). */
int sim_config_get(const sim_config *cfg, const char *section, const char *key, char *buf,
                   size_t len);

/* ---- presets --------------------------------------------------------------- */
typedef struct sim_preset_info {
    const char *name;           /* "least-tlb", "barre-fbarre", ... */
    const char *paper;          /* short paper name */
    const char *cite;           /* title and section of the configuration */
    const char *summary;        /* one line */
    const char *workload;       /* the workload it runs when none is given */
} sim_preset_info;

const sim_preset_info *sim_presets(size_t *n);
/* sim_config_defaults() then the preset's values; -1 for an unknown name. */
int sim_preset_apply(sim_config *cfg, const char *name, sim_error *err);

/* ---- requests and their sources -------------------------------------------- */

/* One translation request as a source gives it. */
typedef struct sim_request {
    uint64_t cycle;             /* when it may enter (timed sources; else 0) */
    uint32_t gpu, cu, pasid;
    uint64_t vaddr;
    xlat_access access;
} sim_request;

/* A virtual range a workload allocates before it runs (a data object):
 * mapped up front, as one Barre object when Barre is on. */
typedef struct sim_object {
    uint32_t pasid;
    uint32_t home_gpu;          /* the GPU whose memory it is placed in (non-Barre) */
    uint64_t vaddr;             /* page aligned */
    uint64_t bytes;
} sim_object;

/* A stream of requests: a trace reader or a workload generator.
 * next() returns 1 with *out filled, 0 at the end, -1 with err set (a
 * malformed line: "file:line: what is wrong"). */
typedef struct sim_source sim_source;
struct sim_source {
    int (*next)(sim_source *src, sim_request *out, sim_error *err);
    void (*close)(sim_source *src);   /* frees src itself */
    bool timed;                 /* requests carry their cycle */
    const sim_object *objects;  /* allocations to map first (may be NULL) */
    size_t nobjects;
    char name[128];             /* "random:footprint=..." or the file name */
    uint64_t expected;          /* requests it will give, when known (0: unknown) */
};

/* A source's calls, whether it is timed, and its name (truncated to fit). */
static inline void sim_source_init(sim_source *src,
                                   int (*next)(sim_source *, sim_request *, sim_error *),
                                   void (*close)(sim_source *), bool timed, const char *name)
{
    src->next = next;
    src->close = close;
    src->timed = timed;
    snprintf(src->name, sizeof(src->name), "%s", name);
}

static inline int sim_source_next(sim_source *s, sim_request *out, sim_error *err)
{
    return s->next(s, out, err);
}

static inline void sim_source_close(sim_source *s)
{
    if (s)
        s->close(s);
}

/* The shape of the system a source is generating for. */
typedef struct sim_shape {
    uint32_t gpus, cus, pasids, page_shift;
    uint64_t seed;
    uint64_t requests;          /* how many the run wants (generators stop there; 0: their default) */
} sim_shape;

/* ---- traces (trace*.c) ------------------------------------------------------
 * Opens a trace, the format chosen by content (binary magic, .traceg's
 * "-kernel name" header) and the compression by magic (gzip, xz). */
int sim_trace_open(const char *path, const sim_shape *shape, sim_source **out, sim_error *err);
/* Writes `in` (any readable trace) as the compact binary format. */
int sim_trace_convert(const char *in, const char *out, const sim_shape *shape, sim_error *err);

/* ---- workloads (workload*.c) ------------------------------------------------
 * "NAME" or "NAME:k=v,k=v". */
typedef struct sim_workload_info {
    const char *name;
    const char *params;         /* "footprint=PAGES sharing=GPUS ..." with defaults */
    const char *summary;        /* one line, with the paper it follows */
} sim_workload_info;

const sim_workload_info *sim_workloads(size_t *n);
int sim_workload_open(const char *spec, const sim_shape *shape, sim_source **out, sim_error *err);

#endif /* XLAT_SIM_H */
