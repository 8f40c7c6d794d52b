/* xlat-sim's configuration readers on any bytes: the input as an INI file
 * (sim_config_load_ini, through libinih), then its first line as a --set
 * argument (sim_config_set_arg). Each must succeed or fail with a message,
 * never crash, leak or hang. After a successful load every knob's value, as
 * sim_config_get writes it, must read back (sim_config_set) to the same
 * text: what the reader took, the writer can say. */
#include "fuzz.h"
#include "fuzz_tmpfile.h"
#include "sim.h"

static void check_knobs_round_trip(sim_config *cfg)
{
    size_t n;
    const sim_knob_info *k = sim_knobs(&n);
    for (size_t i = 0; i < n; i++) {
        char text[1100], again[1100];
        sim_error err = {{0}};
        FUZZ_CHECK(sim_config_get(cfg, k[i].section, k[i].key, text, sizeof(text)) == 0,
                   "get %s.%s", k[i].section, k[i].key);
        int rc = sim_config_set(cfg, k[i].section, k[i].key, text, "fuzz", &err);
        FUZZ_CHECK(rc == 0, "%s.%s = '%s' does not read back: %s", k[i].section, k[i].key, text,
                   err.msg);
        FUZZ_CHECK(sim_config_get(cfg, k[i].section, k[i].key, again, sizeof(again)) == 0 &&
                       strcmp(text, again) == 0,
                   "%s.%s: '%s' read back as '%s'", k[i].section, k[i].key, text, again);
    }
}

static void load_ini(sim_config *cfg, const uint8_t *data, size_t size)
{
    char path[FUZZ_TMPFILE_PATH_LEN];
    sim_error err = {{0}};
    if (fuzz_tmpfile_write(data, size, ".ini", path) != 0)
        return;
    sim_config_defaults(cfg);
    int rc = sim_config_load_ini(cfg, path, &err);
    fuzz_tmpfile_remove(path);
    FUZZ_CHECK(rc == 0 || (rc == -1 && err.msg[0] != '\0'), "load_ini: %d, '%s'", rc, err.msg);
    if (rc == 0)
        check_knobs_round_trip(cfg);
}

static void set_arg(sim_config *cfg, const uint8_t *data, size_t size)
{
    char arg[512];
    size_t n = 0;
    while (n < size && n < sizeof(arg) - 1 && data[n] != '\n' && data[n] != '\0') {
        arg[n] = (char)data[n];
        n++;
    }
    arg[n] = '\0';
    sim_error err = {{0}};
    sim_config_defaults(cfg);
    int rc = sim_config_set_arg(cfg, arg, &err);
    FUZZ_CHECK(rc == 0 || (rc == -1 && err.msg[0] != '\0'), "set_arg '%s': %d, '%s'", arg, rc,
               err.msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sim_config *cfg = malloc(sizeof(*cfg));
    if (!cfg)
        return 0;
    load_ini(cfg, data, size);
    set_arg(cfg, data, size);
    free(cfg);
    return 0;
}
