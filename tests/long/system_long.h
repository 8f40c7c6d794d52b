/* make check-long's whole-system runs (system_long.c). */
#ifndef XLAT_SYSTEM_LONG_H
#define XLAT_SYSTEM_LONG_H

#include <check.h>

/* Adds the 10^8-request invariant run and the reproducibility runs. */
void system_long_add_tests(TCase *tc);

#endif
