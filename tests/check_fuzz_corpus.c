/* Replays every input kept under tests/fuzz/corpus/NAME (seeds and the
 * crashes make fuzz found, once fixed) through the harness
 * tests/fuzz/fuzz_NAME.c, linked here with its entry point renamed
 * fuzz_NAME_one. The list of harnesses is written by make from the files
 * (harnesses.h), so a harness added later is replayed with no edit here. A
 * broken rule aborts in FUZZ_CHECK, which fails the test (Check forks). A
 * harness with no corpus folder replays nothing. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"

#define FUZZ_HARNESS(name) int fuzz_##name##_one(const uint8_t *data, size_t size);
#include "harnesses.h"
#undef FUZZ_HARNESS

typedef struct harness {
    const char *name;
    int (*one)(const uint8_t *data, size_t size);
} harness;

static const harness harnesses[] = {
#define FUZZ_HARNESS(name) {#name, fuzz_##name##_one},
#include "harnesses.h"
#undef FUZZ_HARNESS
    {NULL, NULL} /* keeps the array non-empty before the first harness */
};

#define HARNESSES (sizeof(harnesses) / sizeof(harnesses[0]) - 1)

/* The whole file, malloc'd (at least one byte, so that an empty input is
 * still a valid pointer); NULL when it cannot be read. */
static uint8_t *read_input(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f)
        return NULL;
    uint8_t *data = NULL;
    if (fstat(fileno(f), &st) == 0 && (data = malloc((size_t)st.st_size + 1)) != NULL &&
        fread(data, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
        free(data);
        data = NULL;
    }
    *size = data ? (size_t)st.st_size : 0;
    fclose(f);
    return data;
}

static int not_hidden(const struct dirent *d)
{
    return d->d_name[0] != '.';
}

/* The inputs of corpus/NAME in name order (n < 0: no such folder). */
static int corpus_inputs(const char *name, char *dir, size_t len, struct dirent ***names)
{
    snprintf(dir, len, "%s/tests/fuzz/corpus/%s", XLAT_TEST_SRCDIR, name);
    return scandir(dir, names, not_hidden, alphasort);
}

static void free_names(struct dirent **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    if (n >= 0)
        free(names);
}

static void replay(const harness *h)
{
    char dir[4096], path[4352];
    struct dirent **names;
    int n = corpus_inputs(h->name, dir, sizeof(dir), &names);
    for (int i = 0; i < n; i++) {
        size_t size;
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
        uint8_t *data = read_input(path, &size);
        ck_assert_msg(data != NULL, "cannot read %s", path);
        ck_assert_msg(h->one(data, size) == 0, "%s returned nonzero", path);
        free(data);
    }
    free_names(names, n);
}

START_TEST(every_corpus_input_replays)
{
    replay(&harnesses[_i]);
}
END_TEST

/* The seeds of the harnesses this suite came with are where make check
 * looks for them, and each of those harnesses is linked: a corpus that
 * silently moved, or a harness dropped from the list, would replay nothing. */
START_TEST(first_harnesses_have_seeds)
{
    static const char *const seeded[] = {"cuckoo", "pagetable", "sim_config", "sim_trace", "tlb"};
    for (size_t k = 0; k < sizeof(seeded) / sizeof(seeded[0]); k++) {
        char dir[4096];
        struct dirent **names;
        size_t found = 0;
        for (size_t i = 0; i < HARNESSES; i++)
            found += strcmp(harnesses[i].name, seeded[k]) == 0;
        ck_assert_msg(found == 1, "no harness tests/fuzz/fuzz_%s.c", seeded[k]);
        int n = corpus_inputs(seeded[k], dir, sizeof(dir), &names);
        free_names(names, n);
        ck_assert_msg(n >= 3, "%s: %d inputs", dir, n);
    }
}
END_TEST

Suite *fuzz_corpus_suite(void)
{
    Suite *s = suite_create("fuzz_corpus");
    TCase *tc = test_case(s, "replay");
    tcase_add_loop_test(tc, every_corpus_input_replays, 0, (int)HARNESSES);
    tcase_add_test(tc, first_harnesses_have_seeds);
    return s;
}
