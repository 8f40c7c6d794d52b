/* For harnesses whose reader takes a path: the input as a temporary file,
 * removed by the caller with fuzz_tmpfile_remove() before it returns. */
#ifndef XLAT_FUZZ_TMPFILE_H
#define XLAT_FUZZ_TMPFILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Writes data to a new file "/tmp/xlat-fuzz-XXXXXX" + suffix; returns 0 and
 * the name in path (PATH_LEN bytes), or -1 (nothing left behind). */
#define FUZZ_TMPFILE_PATH_LEN 64

static inline int fuzz_tmpfile_write(const uint8_t *data, size_t size, const char *suffix,
                                     char *path)
{
    int suffix_len = (int)strlen(suffix);
    snprintf(path, FUZZ_TMPFILE_PATH_LEN, "/tmp/xlat-fuzz-XXXXXX%s", suffix);
    int fd = mkstemps(path, suffix_len);
    if (fd < 0)
        return -1;
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, data + done, size - done);
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    close(fd);
    if (done < size) {
        unlink(path);
        return -1;
    }
    return 0;
}

static inline void fuzz_tmpfile_remove(const char *path)
{
    unlink(path);
}

#endif
