/* xlat-sim's configuration: the defaults, and setting and reading a knob by
 * [section] key through the registry (knobs_units.c, knobs_more.c). */
#include <stdio.h>
#include <string.h>

#include "config.h"

/* The order of the docs and of the messages that list the sections. */
const char *const sim_sections[] = {"system", "l1", "l2", "iommu", "iommu_walk", "pwc",
                                    "dwspp", "gmmu", "gmmu_walk", "fbarre", "memory",
                                    "barre", "run", NULL};

void sim_config_defaults(sim_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    xlat_system_config_init(&cfg->system); /* least-TLB's Table 2 system */
    xlat_system_l1_config_init(&cfg->l1);
    xlat_system_l2_config_init(&cfg->l2);
    xlat_iommu_config_init(&cfg->iommu);
    xlat_iommu_walker_config_init(&cfg->iommu_walk);
    xlat_pwc_config_init(&cfg->pwc);
    xlat_dwspp_preset(&cfg->dwspp, XLAT_DWSPP_DEFAULT);
    xlat_gmmu_config_init(&cfg->gmmu_cfg);
    xlat_walker_config_init(&cfg->gmmu_walk);
    xlat_fbarre_config_init(&cfg->fbarre);
    cfg->iommu_pwc = false;
    cfg->gmmu = cfg->system.gmmu = false;

    xlat_physmem_config pm;
    xlat_physmem_config_init(&pm);
    cfg->mem.levels = 4;
    cfg->mem.page_shift = 12;
    cfg->mem.placement = XLAT_PLACE_LOCAL;
    cfg->mem.chunk_pages = pm.chunk_pages;
    cfg->mem.frames_per_gpu = UINT64_C(1) << 20; /* 4 GiB of 4 KiB frames per GPU */
    cfg->mem.map_chunk_pages = 512;

    xlat_pec_buffer_config pec;
    xlat_pec_buffer_config_init(&pec);
    cfg->barre.placement = XLAT_BARRE_LASP;
    cfg->barre.interlv_gran = 1;
    cfg->barre.max_merge = 1;
    cfg->barre.pec_entries = pec.entries;

    cfg->run.mode = SIM_MODE_TIMED;
    cfg->run.seed = 1;
    cfg->run.issue_interval = 1;
    cfg->run.pasids = 1;
    strcpy(cfg->run.workload, "random");
}

size_t sim_knob_count(void)
{
    return sim_knobs_units_n + sim_knobs_more_n;
}

const knob *sim_knob_at(size_t i)
{
    if (i < sim_knobs_units_n)
        return &sim_knobs_units[i];
    i -= sim_knobs_units_n;
    return i < sim_knobs_more_n ? &sim_knobs_more[i] : NULL;
}

const knob *sim_knob_find(const char *section, const char *key)
{
    for (size_t i = 0; i < sim_knob_count(); i++) {
        const knob *k = sim_knob_at(i);
        if (!strcmp(k->section, section) && !strcmp(k->key, key))
            return k;
    }
    return NULL;
}

int sim_section_known(const char *section)
{
    for (size_t i = 0; sim_sections[i]; i++)
        if (!strcmp(sim_sections[i], section))
            return 1;
    return 0;
}

/* "a, b, c": the sections, or the keys of one, for the "unknown" messages. */
static void list_names(const char *section, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    size_t n = section ? sim_knob_count() : sizeof(sim_sections) / sizeof(sim_sections[0]) - 1;
    for (size_t i = 0; i < n && used < len; i++) {
        const char *name = section ? sim_knob_at(i)->key : sim_sections[i];
        if (section && strcmp(sim_knob_at(i)->section, section))
            continue;
        int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", name);
        used += w > 0 ? (size_t)w : 0;
    }
}

int sim_config_set(sim_config *cfg, const char *section, const char *key, const char *value,
                   const char *where, sim_error *err)
{
    char names[SIM_ERR_LEN];
    if (!where)
        where = "(config)";
    if (!sim_section_known(section)) {
        list_names(NULL, names, sizeof(names));
        return sim_fail(err, "%s: unknown section [%s] (sections: %s)", where, section, names);
    }
    const knob *k = sim_knob_find(section, key);
    if (!k) {
        list_names(section, names, sizeof(names));
        return sim_fail(err, "%s: [%s] unknown key '%s' (keys: %s)", where, section, key, names);
    }
    char why[SIM_ERR_LEN];
    if (knob_parse(k, cfg, value, why, sizeof(why)) != 0)
        return sim_fail(err, "%s: [%s] %s: '%s' %s", where, section, key, value, why);
    return 0;
}

int sim_config_set_arg(sim_config *cfg, const char *arg, sim_error *err)
{
    const char *eq = strchr(arg, '=');
    const char *dot = strchr(arg, '.');
    if (!eq || !dot || dot > eq || dot == arg || dot + 1 == eq)
        return sim_fail(err, "--set: '%s' is not section.key=value", arg);
    char section[64], key[64];
    size_t slen = (size_t)(dot - arg), klen = (size_t)(eq - dot - 1);
    if (slen >= sizeof(section) || klen >= sizeof(key))
        return sim_fail(err, "--set: '%s': no knob has so long a name", arg);
    memcpy(section, arg, slen);
    section[slen] = '\0';
    memcpy(key, dot + 1, klen);
    key[klen] = '\0';
    return sim_config_set(cfg, section, key, eq + 1, "--set", err);
}

int sim_config_get(const sim_config *cfg, const char *section, const char *key, char *buf,
                   size_t len)
{
    const knob *k = sim_knob_find(section, key);
    if (!k || !buf || len == 0)
        return -1;
    return knob_format(k, cfg, buf, len);
}

const sim_knob_info *sim_knobs(size_t *n)
{
    /* Built once: the ranges are texts made from the rows' numbers. */
    static sim_knob_info info[256];
    static char range[256][96];
    static size_t count;
    if (!count) {
        size_t total = sim_knob_count();
        for (size_t i = 0; i < total && i < 256; i++) {
            const knob *k = sim_knob_at(i);
            knob_range(k, range[i], sizeof(range[i]));
            info[i] = (sim_knob_info){k->section, k->key, range[i], k->help};
        }
        count = total < 256 ? total : 256;
    }
    if (n)
        *n = count;
    return info;
}
