/* xlat-sim's knob registry: one row per knob, read by config.c (set, get,
 * the --list-knobs table) and by nothing else. Private to tools/xlat-sim. */
#ifndef XLAT_SIM_CONFIG_H
#define XLAT_SIM_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "sim.h"

typedef enum knob_type {
    KNOB_U32,    /* uint32_t in [min, max] */
    KNOB_U64,    /* uint64_t in [min, max] */
    KNOB_BOOL,   /* bool: true/false/yes/no/on/off/1/0 */
    KNOB_ENUM,   /* an enum (int-sized), by its lower-case name: value = index in names */
    KNOB_DOUBLE, /* double in [dmin, dmax] */
    KNOB_STR     /* char[size] */
} knob_type;

typedef struct knob {
    const char *section;
    const char *key;
    knob_type type;
    size_t off;                 /* offset of the field in sim_config */
    size_t off2;                /* a second field the same value goes to (mirror; 0: none) */
    uint64_t min, max;          /* KNOB_U32, KNOB_U64 */
    double dmin, dmax;          /* KNOB_DOUBLE */
    const char *const *names;   /* KNOB_ENUM: NULL-terminated */
    size_t size;                /* KNOB_STR: buffer bytes */
    const char *help;
} knob;

#define KNOB_OFF(f) offsetof(sim_config, f)
#define KNOB_U32_ROW(s, k, f, lo, hi, h) \
    { .section = s, .key = k, .type = KNOB_U32, .off = KNOB_OFF(f), .min = lo, .max = hi, .help = h }
#define KNOB_U64_ROW(s, k, f, lo, hi, h) \
    { .section = s, .key = k, .type = KNOB_U64, .off = KNOB_OFF(f), .min = lo, .max = hi, .help = h }
#define KNOB_BOOL_ROW(s, k, f, h) \
    { .section = s, .key = k, .type = KNOB_BOOL, .off = KNOB_OFF(f), .help = h }
#define KNOB_ENUM_ROW(s, k, f, n, h) \
    { .section = s, .key = k, .type = KNOB_ENUM, .off = KNOB_OFF(f), .names = n, .help = h }
#define KNOB_DBL_ROW(s, k, f, lo, hi, h) \
    { .section = s, .key = k, .type = KNOB_DOUBLE, .off = KNOB_OFF(f), .dmin = lo, .dmax = hi, .help = h }
#define KNOB_STR_ROW(s, k, f, h) \
    { .section = s, .key = k, .type = KNOB_STR, .off = KNOB_OFF(f), \
      .size = sizeof(((sim_config *)0)->f), .help = h }

#define KNOB_U32_MAX 4294967295u
#define KNOB_U64_MAX UINT64_C(18446744073709551615)
/* A clock ratio's terms: 0 (both: 1:1) or 1..XLAT_CLOCK_RATIO_MAX. */
#define KNOB_CLOCK_MAX 65536u

/* The registry, in two files by section (knobs_units.c, knobs_more.c). */
extern const knob sim_knobs_units[];
extern const size_t sim_knobs_units_n;
extern const knob sim_knobs_more[];
extern const size_t sim_knobs_more_n;

/* Enum names shared by both files (index = the enum's value). */
extern const char *const sim_repl_names[];

/* The sections, in the order the registry and the docs list them. */
extern const char *const sim_sections[];

/* The i-th knob of the whole registry (NULL past the end). */
const knob *sim_knob_at(size_t i);
size_t sim_knob_count(void);
/* The row of [section] key, NULL when there is none. */
const knob *sim_knob_find(const char *section, const char *key);
/* True when `section` is one of sim_sections. */
int sim_section_known(const char *section);

/* config_value.c: one knob's value from and to text. knob_parse returns 0,
 * or -1 with `why` the end of the message ("is out of range (1..64)"). */
int knob_parse(const knob *k, sim_config *cfg, const char *text, char *why, size_t len);
/* The value as the INI would take it; 0, or -1 when buf is too small. */
int knob_format(const knob *k, const sim_config *cfg, char *buf, size_t len);
/* What it takes: "1..64", "lru, fifo, random, plru", "true, false",
 * "text of at most N characters" (no '|': the doc's tables hold it). */
void knob_range(const knob *k, char *buf, size_t len);

/* A preset: what sim_presets() lists, and the values it writes over the
 * defaults. presets.c holds least-TLB's and Barre Chord's, presets_more.c
 * the walk, GMMU and walk-stealing papers'. */
typedef struct sim_preset_row {
    sim_preset_info info;
    void (*apply)(sim_config *cfg);
} sim_preset_row;

extern const sim_preset_row sim_presets_more[];
extern const size_t sim_presets_more_n;

#endif /* XLAT_SIM_CONFIG_H */
