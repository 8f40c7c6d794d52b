/* xlat-sim's command line (being built: the run, compare and the lists follow). */
#include <stdio.h>
#include <string.h>

#include "sim.h"

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        printf("xlat-sim %s\n", xlat_version_string());
        return 0;
    }
    fprintf(stderr, "usage: xlat-sim --version\n");
    return 2;
}
