/* The sim_config suite's parts in other files of tests/sim. */
#ifndef XLAT_SIM_CONFIG_TESTS_H
#define XLAT_SIM_CONFIG_TESTS_H

#include <check.h>

/* sim_config_presets.c: every preset applies; each family's values. */
void sim_config_preset_tests(Suite *s);

#endif
