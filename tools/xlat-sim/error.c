/* The one way the parts of xlat-sim report a failure: a message for the user. */
#include <stdarg.h>
#include <stdio.h>

#include "sim.h"

int sim_fail(sim_error *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
        va_end(ap);
    }
    return -1;
}
