/*
 * Every example program the Makefile builds (build/examples/), run as a
 * user would run it: it must exit 0 (each example checks what it shows and
 * fails otherwise) and print something.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "testutil.h"

#define EXAMPLES_DIR XLAT_TEST_EXAMPLES /* this build's: the sanitizers' under make sanitize */

/* Runs `path`, returning its exit status; *printed: bytes of its stdout. */
static int run(const char *path, size_t *printed)
{
    FILE *p = popen(path, "r");
    ck_assert_msg(p != NULL, "cannot run %s", path);
    char buf[4096];
    size_t n;
    *printed = 0;
    while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
        *printed += n;
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

START_TEST(every_example_runs)
{
    DIR *d = opendir(EXAMPLES_DIR);
    ck_assert_msg(d != NULL, "no %s: make builds the examples", EXAMPLES_DIR);
    int ran = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", EXAMPLES_DIR, e->d_name);
        size_t printed;
        int status = run(path, &printed);
        ck_assert_msg(status == 0, "example %s exited with %d", e->d_name, status);
        ck_assert_msg(printed > 0, "example %s printed nothing", e->d_name);
        ran++;
    }
    closedir(d);
    ck_assert_int_ge(ran, 2);
}
END_TEST

Suite *examples_suite(void)
{
    Suite *s = suite_create("examples");
    TCase *tc = tcase_create("run");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, every_example_runs);
    suite_add_tcase(s, tc);
    return s;
}
