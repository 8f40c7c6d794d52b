/*
 * Layers by construction (doc/composition.md): the library's folders form
 * the order core < tlb, cuckoo, fixed, link < mem < barre < walk < iommu < system,
 * and no edge runs upward or sideways.
 *
 * - Link level: every undefined symbol of each object of the static
 *   library (nm) is mapped to the folder whose object defines it.
 * - Include level: every quoted #include of lib/<folder>/ names a header of
 *   the same folder, of core, of a lower folder through a named internal
 *   interface (never another folder's *_internal.h), or a public header
 *   of a lower (or the same) layer.
 */
#include "testutil.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef XLAT_TEST_SRCDIR
#define XLAT_TEST_SRCDIR "."
#endif
#ifndef XLAT_TEST_SHARED
#define XLAT_TEST_SHARED XLAT_TEST_SRCDIR "/lib/libxlat.so"
#endif

static const struct { const char *folder; int rank; } layers[] = {
    {"core", 0}, {"tlb", 1}, {"cuckoo", 1}, {"fixed", 1}, {"link", 1},
    {"mem", 2},  {"barre", 3}, {"walk", 4}, {"iommu", 5}, {"system", 6},
};

/* Public headers by the layer they belong to. */
static const struct { const char *header; const char *folder; } public_headers[] = {
    {"common.h", "core"},   {"ctx.h", "core"},        {"target.h", "core"},
    {"version.h", "core"},  {"tlb.h", "tlb"},         {"cuckoo.h", "cuckoo"},
    {"fixed.h", "fixed"},   {"link.h", "link"},       {"physmem.h", "mem"},
    {"pagetable.h", "mem"}, {"pwc.h", "mem"},         {"walker.h", "walk"},
    {"gmmu.h", "iommu"},    {"iommu.h", "iommu"},     {"system.h", "system"},
    {"stats.h", "core"},    {"xlat.h", "system"},     {"barre.h", "barre"},
    {"barre_alloc.h", "barre"},
    {"fbarre.h", "barre"},
    {"experimental.h", "iommu"}, /* it reaches up to iommu.h */
    {"mcm.h", "system"},
};

static int rank_of(const char *folder)
{
    for (size_t i = 0; i < sizeof(layers) / sizeof(layers[0]); i++)
        if (strcmp(layers[i].folder, folder) == 0)
            return layers[i].rank;
    return -1;
}

/* May code in `user` depend on `dep`? */
static int edge_ok(const char *user, const char *dep)
{
    return strcmp(user, dep) == 0 || rank_of(dep) < rank_of(user);
}

#define MAX_SYMS 4096

typedef struct symtab {
    char name[MAX_SYMS][64];
    char folder[MAX_SYMS][16];
    size_t n;
} symtab;

/* Every source of the library as "folder/name.c", read once. */
static char sources[512][64];
static size_t n_sources;

static void read_sources(void)
{
    char cmd[512], line[256];
    snprintf(cmd, sizeof(cmd), "cd '%s' && ls lib/*/*.c", XLAT_TEST_SRCDIR);
    FILE *p = popen(cmd, "r");
    ck_assert(p != NULL);
    n_sources = 0;
    while (n_sources < 512 && fgets(line, sizeof(line), p)) {
        line[strcspn(line, "\n")] = '\0';
        snprintf(sources[n_sources++], 64, "%.63s", line + 4); /* after "lib/" */
    }
    pclose(p);
    ck_assert_uint_gt(n_sources, 20);
}

/* The folder of object `obj` ("tlb_timed.o"): found by its source's name. */
static int folder_of_object(const char *obj, char *folder, size_t len)
{
    size_t base = strlen(obj) - 2;
    for (size_t i = 0; i < n_sources; i++) {
        const char *slash = strchr(sources[i], '/');
        if (slash && strncmp(slash + 1, obj, base) == 0 && strcmp(slash + 1 + base, ".c") == 0) {
            snprintf(folder, len, "%.*s", (int)(slash - sources[i]), sources[i]);
            return 1;
        }
    }
    return 0;
}

/* Runs nm over the archive; fills `defs` and calls back for each use. */
static FILE *open_nm(void)
{
    static char archive[1024];
    char shared[1024];
    snprintf(shared, sizeof(shared), "%s", XLAT_TEST_SHARED);
    snprintf(archive, sizeof(archive), "nm -A '%s/libxlat.a'", dirname(shared));
    FILE *p = popen(archive, "r");
    ck_assert_msg(p != NULL, "cannot run %s", archive);
    return p;
}

/* Parses "archive:object.o:<value> T name" or "archive:object.o:  U name". */
static int parse_nm(char *line, char *obj, size_t objlen, char *type, char *sym, size_t symlen)
{
    char *a = strstr(line, ".a:");
    if (!a)
        return 0;
    char *o = a + 3, *colon = strchr(o, ':');
    if (!colon)
        return 0;
    snprintf(obj, objlen, "%.*s", (int)(colon - o), o);
    char t[4], s[128];
    char *rest = colon + 1;
    while (*rest == ' ')
        rest++;
    int undefined = rest[0] == 'U' && rest[1] == ' '; /* no value before the type */
    if (undefined ? sscanf(rest, "%3s %127s", t, s) == 2 : sscanf(rest, "%*s %3s %127s", t, s) == 2) {
        *type = t[0];
        snprintf(sym, symlen, "%s", s);
        return 1;
    }
    return 0;
}

static void read_defs(symtab *defs)
{
    FILE *p = open_nm();
    char line[512], obj[128], sym[128], folder[16], type;
    defs->n = 0;
    while (fgets(line, sizeof(line), p)) {
        if (!parse_nm(line, obj, sizeof(obj), &type, sym, sizeof(sym)) || type == 'U')
            continue;
        if (type < 'A' || type > 'Z' || defs->n == MAX_SYMS)
            continue; /* local symbols never link across objects */
        ck_assert_msg(folder_of_object(obj, folder, sizeof(folder)), "no source for %s", obj);
        snprintf(defs->name[defs->n], 64, "%.63s", sym);
        snprintf(defs->folder[defs->n], 16, "%.15s", folder);
        defs->n++;
    }
    pclose(p);
}

static const char *def_folder(const symtab *defs, const char *sym)
{
    for (size_t i = 0; i < defs->n; i++)
        if (strcmp(defs->name[i], sym) == 0)
            return defs->folder[i];
    return NULL; /* the C library's */
}

START_TEST(link_edges_run_downward)
{
    static symtab defs;
    read_sources();
    read_defs(&defs);
    ck_assert_uint_gt(defs.n, 100);
    FILE *p = open_nm();
    char line[512], obj[128], sym[128], folder[16], type, bad[4096] = "";
    while (fgets(line, sizeof(line), p)) {
        if (!parse_nm(line, obj, sizeof(obj), &type, sym, sizeof(sym)) || type != 'U')
            continue;
        const char *dep = def_folder(&defs, sym);
        ck_assert(folder_of_object(obj, folder, sizeof(folder)));
        ck_assert_msg(rank_of(folder) >= 0, "folder %s has no layer", folder);
        if (dep && !edge_ok(folder, dep) && strlen(bad) < sizeof(bad) - 200)
            snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad), " %s/%s -> %s (%s);", folder,
                     obj, dep, sym);
    }
    pclose(p);
    ck_assert_msg(bad[0] == '\0', "upward or sideways link edges:%s", bad);
}
END_TEST

/* Checks one quoted include of a file in lib/<folder>/; "" when allowed. */
static void check_include(const char *folder, const char *file, const char *inc, char *bad,
                          size_t len)
{
    const char *dep = NULL;
    char other[32];
    if (strncmp(inc, "xlat/", 5) == 0) {
        for (size_t i = 0; i < sizeof(public_headers) / sizeof(public_headers[0]); i++)
            if (strcmp(public_headers[i].header, inc + 5) == 0)
                dep = public_headers[i].folder;
    } else if (strncmp(inc, "../", 3) == 0 && sscanf(inc + 3, "%31[^/]", other) == 1) {
        dep = other;
        if (strstr(inc, "_internal.h"))
            dep = "(a private header)";
    } else {
        char path[512];
        snprintf(path, sizeof(path), "%s/lib/%s/%s", XLAT_TEST_SRCDIR, folder, inc);
        FILE *f = fopen(path, "r");
        dep = f ? folder : "core"; /* -Ilib/core finds the rest */
        if (f)
            fclose(f);
    }
    if (!dep || rank_of(dep) < 0 || !edge_ok(folder, dep))
        snprintf(bad + strlen(bad), len - strlen(bad), " lib/%s/%s: \"%s\";", folder, file, inc);
}

START_TEST(include_edges_run_downward)
{
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "cd '%s' && grep -H '^#include \"' lib/*/*.c lib/*/*.h",
             XLAT_TEST_SRCDIR);
    FILE *p = popen(cmd, "r");
    ck_assert(p != NULL);
    char line[512], bad[4096] = "";
    size_t seen = 0;
    while (fgets(line, sizeof(line), p) && strlen(bad) < sizeof(bad) - 300) {
        char folder[32], file[128], inc[128];
        if (sscanf(line, "lib/%31[^/]/%127[^:]:#include \"%127[^\"]\"", folder, file, inc) != 3)
            continue;
        seen++;
        check_include(folder, file, inc, bad, sizeof(bad));
    }
    pclose(p);
    ck_assert_uint_gt(seen, 50);
    ck_assert_msg(bad[0] == '\0', "includes against the layers:%s", bad);
}
END_TEST

/* The checker itself: known edges are judged as the order says. */
START_TEST(layer_order)
{
    ck_assert(edge_ok("walk", "mem"));
    ck_assert(edge_ok("iommu", "core"));
    ck_assert(!edge_ok("iommu", "system"));
    ck_assert(!edge_ok("tlb", "fixed"));
    ck_assert(!edge_ok("core", "tlb"));
    ck_assert(edge_ok("link", "link"));
}
END_TEST

Suite *layers_suite(void)
{
    Suite *s = suite_create("layers");
    TCase *tc = test_case(s, "layers");
    tcase_add_test(tc, layer_order);
    tcase_add_test(tc, link_edges_run_downward);
    tcase_add_test(tc, include_edges_run_downward);
    return s;
}
