/* A sim test's scratch folder under /tmp: made fresh, its files written
 * and read by name, removed with everything in it (a sweep's output
 * folders included). */
#ifndef XLAT_TESTS_SIM_SCRATCH_H
#define XLAT_TESTS_SIM_SCRATCH_H

#include <stddef.h>

/* Makes /tmp/PREFIX-XXXXXX into `dir` (`size` bytes). */
void scratch_make(char *dir, size_t size, const char *prefix);
/* Removes `dir` and everything below it. */
void scratch_remove(const char *dir);
/* dir/name; four buffers in turn, for calls that take several paths. */
const char *scratch_path(const char *dir, const char *name);
/* Writes `text` to dir/name; returns its path (as scratch_path()). */
const char *scratch_write(const char *dir, const char *name, const char *text);
/* The whole of dir/name, NUL-terminated (the caller frees); NULL when it
 * does not exist. */
char *scratch_read(const char *dir, const char *name);

#endif
