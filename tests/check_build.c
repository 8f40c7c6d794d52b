/* Build-level tests: what the shared library exports, whether the public
 * headers compile on their own as C99 and as C++11 (and link from C++), that
 * every place holding the version agrees, and that every status code has a
 * name. The Makefile passes XLAT_TEST_SRCDIR, XLAT_TEST_CC, XLAT_TEST_CXX and
 * XLAT_TEST_SHARED (the shared library of this build, which is not under
 * lib/ in the sanitize build). */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#ifndef XLAT_TEST_SRCDIR
#define XLAT_TEST_SRCDIR "."
#endif
#ifndef XLAT_TEST_CC
#define XLAT_TEST_CC "cc"
#endif
#ifndef XLAT_TEST_CXX
#define XLAT_TEST_CXX "c++"
#endif
#ifndef XLAT_TEST_SHARED
#define XLAT_TEST_SHARED XLAT_TEST_SRCDIR "/lib/libxlat.so"
#endif

#define INCDIR XLAT_TEST_SRCDIR "/include"
#define HDRDIR INCDIR "/xlat"

#define C_FLAGS "-std=c99 -pedantic -Werror -Wall -Wextra -Wstrict-prototypes -Wundef"
#define CXX_FLAGS "-std=c++11 -pedantic -Werror -Wall -Wextra -Wundef"

/* Instrumented objects need the sanitizer runtimes at link time. */
#if defined(__SANITIZE_ADDRESS__)
#define XLAT_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define XLAT_TEST_ASAN 1
#endif
#endif
#ifdef XLAT_TEST_ASAN
#define LINK_SANFLAGS " -fsanitize=address,undefined"
#else
#define LINK_SANFLAGS ""
#endif

/* ---- small helpers -------------------------------------------------- */

/* A growable string; failures are collected in one so that a test can clean
 * up its temporary files before it asserts (a failed ck_assert ends the
 * forked test at once). */
typedef struct sbuf {
    char  *s;
    size_t len, cap;
} sbuf;

static void sbuf_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    ck_assert_int_ge(n, 0);
    if (b->len + (size_t)n + 1 > b->cap) {
        b->cap = (b->len + (size_t)n + 1) * 2;
        b->s = realloc(b->s, b->cap);
        ck_assert_msg(b->s != NULL, "out of memory");
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

static const char *sbuf_str(const sbuf *b) { return b->s ? b->s : ""; }

/* A sorted, growable list of strings. */
typedef struct strlist {
    char  **v;
    size_t  n, cap;
} strlist;

static void strlist_add(strlist *l, const char *s, size_t len)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->v = realloc(l->v, l->cap * sizeof(*l->v));
        ck_assert_msg(l->v != NULL, "out of memory");
    }
    l->v[l->n] = strndup(s, len);
    ck_assert_msg(l->v[l->n] != NULL, "out of memory");
    l->n++;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sort and drop duplicates. */
static void strlist_sort(strlist *l)
{
    size_t out = 0;
    if (l->n == 0)
        return;
    qsort(l->v, l->n, sizeof(*l->v), cmp_str);
    for (size_t i = 1; i < l->n; i++) {
        if (strcmp(l->v[i], l->v[out]) == 0)
            free(l->v[i]);
        else
            l->v[++out] = l->v[i];
    }
    l->n = out + 1;
}

static bool strlist_has(const strlist *l, const char *s)
{
    return l->n && bsearch(&s, l->v, l->n, sizeof(*l->v), cmp_str) != NULL;
}

static void strlist_free(strlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

/* dir/name into out; fails the test if it does not fit. */
static void join_path(char *out, size_t size, const char *dir, const char *name)
{
    int n = snprintf(out, size, "%s/%s", dir, name);
    ck_assert_msg(n > 0 && (size_t)n < size, "path too long: %s/%s", dir, name);
}

/* The whole file as a NUL-terminated string, or NULL. */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0, cap = 0, got;
    if (!f)
        return NULL;
    do {
        if (cap - len < 4096) {
            cap = cap ? cap * 2 : 8192;
            buf = realloc(buf, cap);
            ck_assert_msg(buf != NULL, "out of memory");
        }
        got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
    } while (got > 0);
    fclose(f);
    buf[len] = '\0';
    return buf;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    ck_assert_int_eq(fputs(text, f) >= 0, 1);
    ck_assert_int_eq(fclose(f), 0);
}

/* The public headers, sorted by name ("common.h", ...). */
static void list_headers(strlist *out)
{
    DIR *d = opendir(HDRDIR);
    struct dirent *de;
    ck_assert_msg(d != NULL, "cannot open %s", HDRDIR);
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len > 2 && strcmp(de->d_name + len - 2, ".h") == 0)
            strlist_add(out, de->d_name, len);
    }
    closedir(d);
    strlist_sort(out);
    ck_assert_msg(out->n > 0, "no header in %s", HDRDIR);
}

/* ---- scanning the headers ---------------------------------------------- */

/* Copy of C source with comments, string and character literals and
 * preprocessor lines blanked (newlines kept). */
static char *strip_c(const char *src)
{
    size_t n = strlen(src);
    char *out = malloc(n + 1);
    bool line_start = true;
    ck_assert_msg(out != NULL, "out of memory");
    memcpy(out, src, n + 1);
    for (size_t i = 0; i < n;) {
        size_t end = i + 1;
        if (src[i] == '/' && src[i + 1] == '*') {
            const char *e = strstr(src + i + 2, "*/");
            end = e ? (size_t)(e - src) + 2 : n;
        } else if (src[i] == '/' && src[i + 1] == '/') {
            end = strcspn(src + i, "\n") + i;
        } else if (src[i] == '"' || src[i] == '\'') {
            while (end < n && src[end] != src[i] && src[end] != '\n')
                end += src[end] == '\\' ? 2 : 1;
            end = end < n ? end + 1 : n;
        } else if (src[i] == '#' && line_start) {
            while (end < n && !(src[end] == '\n' && src[end - 1] != '\\'))
                end++;
        } else {
            if (src[i] == '\n')
                line_start = true;
            else if (!isspace((unsigned char)src[i]))
                line_start = false;
            i++;
            continue;
        }
        for (size_t k = i; k < end; k++)
            if (out[k] != '\n')
                out[k] = ' ';
        i = end;
    }
    return out;
}

static bool is_ident(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* Add to `out` the name declared by every XLAT_API declaration of `text`
 * (already stripped): the last identifier before the first '(', ';', '['
 * or '=' that follows XLAT_API. */
static void scan_api(const char *text, strlist *out)
{
    static const char key[] = "XLAT_API";
    for (const char *p = strstr(text, key); p; p = strstr(p + 1, key)) {
        if ((p > text && is_ident(p[-1])) || is_ident(p[sizeof(key) - 1]))
            continue;
        const char *q = p + sizeof(key) - 1, *name = NULL, *name_end = NULL;
        for (; *q && !strchr("(;[=", *q); q++) {
            if (is_ident(*q) && !is_ident(q[-1])) {
                name = q;
                name_end = NULL;
            } else if (!is_ident(*q) && name && !name_end) {
                name_end = q;
            }
        }
        if (name && !name_end)
            name_end = q;
        if (name)
            strlist_add(out, name, (size_t)(name_end - name));
    }
}

/* Every XLAT_API name declared in include/xlat/ *.h. */
static void expected_symbols(strlist *out)
{
    strlist hdrs = {0};
    char path[PATH_MAX];
    list_headers(&hdrs);
    for (size_t i = 0; i < hdrs.n; i++) {
        join_path(path, sizeof(path), HDRDIR, hdrs.v[i]);
        char *src = read_text(path);
        ck_assert_msg(src != NULL, "cannot read %s", path);
        char *text = strip_c(src);
        scan_api(text, out);
        free(text);
        free(src);
    }
    strlist_free(&hdrs);
    strlist_sort(out);
}

/* ---- (a) exported symbols ----------------------------------------------- */

/* Defined dynamic symbols of the shared library: those of type T/t/D/B
 * (code and data) go to `code_data`, every other one but the version node
 * (type A) to `other`. */
static void actual_symbols(strlist *code_data, strlist *other)
{
    static const char cmd[] = "nm -D --defined-only '" XLAT_TEST_SHARED "'";
    char line[1024];
    ck_assert_msg(access(XLAT_TEST_SHARED, R_OK) == 0, "cannot read %s", XLAT_TEST_SHARED);
    FILE *p = popen(cmd, "r");
    ck_assert_msg(p != NULL, "cannot run: %s", cmd);
    while (fgets(line, sizeof(line), p)) {
        char type, name[512];
        /* "0000000000001234 T xlat_foo" (newer nm may append "@@LIBXLAT_0") */
        if (sscanf(line, "%*s %c %511s", &type, name) != 2)
            continue;
        name[strcspn(name, "@")] = '\0';
        if (strchr("TtDB", type))
            strlist_add(code_data, name, strlen(name));
        else if (type != 'A')
            strlist_add(other, name, strlen(name));
    }
    int st = pclose(p);
    ck_assert_msg(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
                  "'%s' failed (is binutils installed?)", cmd);
    strlist_sort(code_data);
    strlist_sort(other);
}

static void diff_lists(sbuf *msg, const char *what, const strlist *a, const strlist *b)
{
    for (size_t i = 0; i < a->n; i++)
        if (!strlist_has(b, a->v[i]))
            sbuf_printf(msg, "\n  %s: %s", what, a->v[i]);
}

START_TEST(test_exported_symbols)
{
    strlist want = {0}, have = {0}, other = {0};
    sbuf msg = {0};
    expected_symbols(&want);
    actual_symbols(&have, &other);

    ck_assert_msg(strlist_has(&want, "xlat_strerror") && strlist_has(&want, "xlat_ctx_create"),
                  "the header scan found no xlat_strerror / xlat_ctx_create: scanner broken?");
    diff_lists(&msg, "declared XLAT_API but not exported", &want, &have);
    diff_lists(&msg, "exported but not declared XLAT_API", &have, &want);
    for (size_t k = 0; k < 2; k++) {
        const strlist *l = k == 0 ? &have : &other;
        for (size_t i = 0; i < l->n; i++) {
            if (strncmp(l->v[i], "xlat_", 5) != 0)
                sbuf_printf(&msg, "\n  exported without the xlat_ prefix: %s", l->v[i]);
            else if (strncmp(l->v[i], "xlat__", 6) == 0)
                sbuf_printf(&msg, "\n  internal symbol leaked: %s", l->v[i]);
        }
    }

    ck_assert_msg(msg.len == 0, "%s (%zu declared, %zu exported):%s", XLAT_TEST_SHARED, want.n,
                  have.n, sbuf_str(&msg));
    free(msg.s);
    strlist_free(&want);
    strlist_free(&have);
    strlist_free(&other);
}
END_TEST

START_TEST(test_header_scanner)
{
    /* The scanner itself: comments, preprocessor lines and strings are not
     * declarations; multi-line declarations are. */
    static const char src[] =
        "/** XLAT_API int xlat_in_comment(void); */\n"
        "#define XLAT_API __attribute__((visibility(\"default\")))\n"
        "#if 0 \\\n XLAT_API int xlat_in_directive(void);\n#endif\n"
        "// XLAT_API int xlat_in_line_comment(void);\n"
        "XLAT_API const char *xlat_a(int rc);\n"
        "XLAT_API xlat_target\n    xlat_b(xlat_tlb *tlb, const char *s /* ( */);\n"
        "typedef int NOT_XLAT_API_x; XLAT_APIX int xlat_c(void);\n"
        "XLAT_API extern const int xlat_d[4];\n";
    strlist got = {0};
    char *text = strip_c(src);
    scan_api(text, &got);
    strlist_sort(&got);
    free(text);
    ck_assert_uint_eq(got.n, 3);
    ck_assert_str_eq(got.v[0], "xlat_a");
    ck_assert_str_eq(got.v[1], "xlat_b");
    ck_assert_str_eq(got.v[2], "xlat_d");
    strlist_free(&got);
}
END_TEST

/* ---- (b) the headers compile as C99 and C++11 ------------------------------ */

typedef struct scratch {
    char dir[PATH_MAX];
    sbuf errors;
} scratch;

static void scratch_open(scratch *s)
{
    const char *tmp = getenv("TMPDIR");
    memset(s, 0, sizeof(*s));
    snprintf(s->dir, sizeof(s->dir), "%s/xlat-build-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    ck_assert_msg(mkdtemp(s->dir) != NULL, "mkdtemp(%s) failed", s->dir);
}

/* Remove the scratch folder (flat: only files), then fail with every error
 * collected. */
static void scratch_close(scratch *s)
{
    DIR *d = opendir(s->dir);
    struct dirent *de;
    char path[PATH_MAX + 256];
    while (d && (de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (snprintf(path, sizeof(path), "%s/%s", s->dir, de->d_name) < (int)sizeof(path))
            unlink(path);
    }
    if (d)
        closedir(d);
    int rc = rmdir(s->dir);
    char *errors = s->errors.s;
    ck_assert_msg(errors == NULL, "%s", errors ? errors : "");
    ck_assert_msg(rc == 0, "could not remove %s", s->dir);
}

static void scratch_path(const scratch *s, char *out, size_t size, const char *name)
{
    join_path(out, size, s->dir, name);
}

/* Run `cmd` in the scratch folder; on failure record it and its output.
 * Returns 0 on success. */
static int scratch_run(scratch *s, const char *label, const char *cmd)
{
    char log[PATH_MAX];
    sbuf full = {0};
    scratch_path(s, log, sizeof(log), "log");
    sbuf_printf(&full, "cd '%s' && %s >'%s' 2>&1", s->dir, cmd, log);
    int st = system(full.s);
    free(full.s);
    if (st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 0;
    char *out = read_text(log);
    sbuf_printf(&s->errors, "\n%s: failed (status %d): %s\n%s", label, st, cmd,
                out ? out : "(no output)");
    free(out);
    return -1;
}

/* Compile one source that includes `hdr` twice (include guard) with `comp`. */
static void compile_header(scratch *s, const char *hdr, bool cxx)
{
    char src[PATH_MAX], label[256];
    sbuf text = {0}, cmd = {0};
    const char *file = cxx ? "hdr.cpp" : "hdr.c";
    sbuf_printf(&text, "#include <xlat/%s>\n#include <xlat/%s>\n", hdr, hdr);
    sbuf_printf(&text, "int xlat_header_test(void);\nint xlat_header_test(void) { return 0; }\n");
    scratch_path(s, src, sizeof(src), file);
    write_text(src, text.s);
    sbuf_printf(&cmd, "%s %s -I'%s' -c %s -o hdr.o", cxx ? XLAT_TEST_CXX : XLAT_TEST_CC,
                cxx ? CXX_FLAGS : C_FLAGS, INCDIR, file);
    snprintf(label, sizeof(label), "<xlat/%s> as %s", hdr, cxx ? "C++11" : "C99");
    scratch_run(s, label, cmd.s);
    free(text.s);
    free(cmd.s);
}

static void compile_every_header(bool cxx)
{
    strlist hdrs = {0};
    scratch s;
    list_headers(&hdrs);
    ck_assert_msg(strlist_has(&hdrs, "xlat.h"), "no umbrella header xlat.h");
    ck_assert_msg(strlist_has(&hdrs, "experimental.h"), "no experimental.h");
    scratch_open(&s);
    for (size_t i = 0; i < hdrs.n; i++)
        compile_header(&s, hdrs.v[i], cxx);
    strlist_free(&hdrs);
    scratch_close(&s);
}

START_TEST(test_headers_c99)
{
    compile_every_header(false);
}
END_TEST

START_TEST(test_headers_cxx)
{
    compile_every_header(true);
}
END_TEST

/* The experimental helpers stay apart: <xlat/xlat.h> does not bring them
 * (a host asks for <xlat/experimental.h> itself), and the library's own
 * declaration of the walk layer's helpers (lib/walk/dwspp_rules.h, which may
 * not include experimental.h) agrees with the public one: conflicting
 * declarations in one unit do not compile. */
START_TEST(test_experimental_apart)
{
    static const char umbrella[] =
        "#include <xlat/xlat.h>\n"
        "#ifdef XLAT_EXPERIMENTAL_H\n#error xlat.h includes experimental.h\n#endif\n"
        "int xlat_header_test(void);\nint xlat_header_test(void) { return 0; }\n";
    static const char both[] =
        "#include <xlat/experimental.h>\n#include \"dwspp_rules.h\"\n"
        "int xlat_header_test(void);\nint xlat_header_test(void) { return 0; }\n";
    char src[PATH_MAX];
    sbuf cmd = {0};
    scratch s;
    scratch_open(&s);
    scratch_path(&s, src, sizeof(src), "umbrella.c");
    write_text(src, umbrella);
    sbuf_printf(&cmd, "%s %s -I'%s' -c umbrella.c -o umbrella.o", XLAT_TEST_CC, C_FLAGS, INCDIR);
    scratch_run(&s, "<xlat/xlat.h> without experimental.h", cmd.s);
    scratch_path(&s, src, sizeof(src), "both.c");
    write_text(src, both);
    cmd.len = 0;
    sbuf_printf(&cmd, "%s %s -I'%s' -I'%s/lib/walk' -c both.c -o both.o", XLAT_TEST_CC, C_FLAGS,
                INCDIR, XLAT_TEST_SRCDIR);
    scratch_run(&s, "experimental.h with lib/walk/dwspp_rules.h", cmd.s);
    free(cmd.s);
    scratch_close(&s);
}
END_TEST

/* A C++ host: calls through the extern "C" declarations, registers a
 * callback, and links with the static library of this build. */
static const char cxx_host[] =
    "#include <xlat/xlat.h>\n"
    "#include <cstdio>\n"
    "#include <cstring>\n"
    "\n"
    "extern \"C\" {\n"
    "static void on_event(void *user) { *static_cast<int *>(user) += 1; }\n"
    "}\n"
    "\n"
    "int main()\n"
    "{\n"
    "    if (xlat_version_number() != XLAT_VERSION_NUMBER) return 1;\n"
    "    if (std::strcmp(xlat_version_string(), XLAT_VERSION_STRING) != 0) return 2;\n"
    "    xlat_ctx *ctx = nullptr;\n"
    "    if (xlat_ctx_create(nullptr, &ctx) != XLAT_OK) return 3;\n"
    "    int fired = 0;\n"
    "    if (xlat_schedule(ctx, 5, on_event, &fired) != XLAT_OK) return 4;\n"
    "    if (xlat_next_event(ctx) != 5) return 5;\n"
    "    if (xlat_advance(ctx, 5) != XLAT_OK || fired != 1 || xlat_now(ctx) != 5) return 6;\n"
    "    xlat_tlb_config cfg;\n"
    "    xlat_tlb_config_init(&cfg);\n"
    "    xlat_tlb *tlb = nullptr;\n"
    "    if (xlat_tlb_create(ctx, &cfg, &tlb) != XLAT_OK) return 7;\n"
    "    xlat_tlb_entry e = xlat_tlb_entry();\n"
    "    e.pasid = 1; e.vpn = 0x42; e.pfn = 0x9000; e.page_shift = 12; e.perm = XLAT_PERM_R;\n"
    "    if (xlat_tlb_insert(tlb, &e, nullptr) < 0) return 8;\n"
    "    xlat_tlb_entry hit;\n"
    "    if (xlat_tlb_lookup(tlb, 1, 0x42123, &hit) != XLAT_OK || hit.pfn != 0x9000) return 9;\n"
    "    xlat_tlb_destroy(tlb);\n"
    "    xlat_ctx_destroy(ctx);\n"
    "    std::printf(\"%s\\n\", xlat_strerror(XLAT_ERR_AGAIN));\n"
    "    return 0;\n"
    "}\n";

/* The static library beside the shared one of this build. */
static void static_lib_path(char *out, size_t size)
{
    char dir[PATH_MAX];
    int n = snprintf(dir, sizeof(dir), "%s", XLAT_TEST_SHARED);
    ck_assert_msg(n > 0 && (size_t)n < sizeof(dir), "path too long: %s", XLAT_TEST_SHARED);
    char *slash = strrchr(dir, '/');
    ck_assert_msg(slash != NULL, "no folder in %s", dir);
    *slash = '\0';
    join_path(out, size, dir, "libxlat.a");
    ck_assert_msg(access(out, R_OK) == 0, "cannot read %s", out);
}

START_TEST(test_cxx_links_static)
{
    char src[PATH_MAX], lib[PATH_MAX];
    sbuf cmd = {0};
    scratch s;
    static_lib_path(lib, sizeof(lib));
    scratch_open(&s);
    scratch_path(&s, src, sizeof(src), "host.cpp");
    write_text(src, cxx_host);
    sbuf_printf(&cmd, "%s %s -I'%s' host.cpp -o host '%s'%s", XLAT_TEST_CXX, CXX_FLAGS, INCDIR,
                lib, LINK_SANFLAGS);
    if (scratch_run(&s, "C++ host, compile and link", cmd.s) == 0)
        scratch_run(&s, "C++ host, run", "./host");
    free(cmd.s);
    scratch_close(&s);
}
END_TEST

/* ---- (c) versions agree ------------------------------------------------------ */

/* The value of `NAME := 3` (or `=`, `?=`) in the Makefile; -1 if absent. */
static long makefile_number(const char *mk, const char *name)
{
    size_t len = strlen(name);
    for (const char *line = mk; line; line = strchr(line, '\n')) {
        line += *line == '\n';
        if (strncmp(line, name, len) != 0 || is_ident(line[len]))
            continue;
        const char *eq = line + len + strspn(line + len, " \t:?");
        if (*eq != '=')
            continue;
        char *end;
        long v = strtol(eq + 1, &end, 10);
        return end == eq + 1 ? -1 : v;
    }
    return -1;
}

/* The second argument of AC_INIT in configure.ac, without quotes. */
static void configure_version(const char *ac, char *out, size_t size)
{
    const char *p = ac;
    while ((p = strstr(p, "AC_INIT(")) != NULL && p != ac && p[-1] != '\n')
        p++;
    out[0] = '\0';
    ck_assert_msg(p != NULL, "no AC_INIT at the start of a line in configure.ac");
    p = strchr(p, ',');
    ck_assert_msg(p != NULL, "AC_INIT has no version argument");
    p++;
    p += strspn(p, " \t\n[");
    size_t n = strcspn(p, "],) \t\n");
    ck_assert_uint_lt(n, size);
    memcpy(out, p, n);
    out[n] = '\0';
}

START_TEST(test_version_agrees)
{
    char want[64], ac_version[64];
    snprintf(want, sizeof(want), "%d.%d.%d", XLAT_VERSION_MAJOR, XLAT_VERSION_MINOR,
             XLAT_VERSION_PATCH);

    /* header and library */
    ck_assert_uint_eq(xlat_version_number(), XLAT_VERSION_NUMBER);
    ck_assert_int_eq(XLAT_VERSION_NUMBER,
                     XLAT_VERSION_MAJOR * 10000 + XLAT_VERSION_MINOR * 100 + XLAT_VERSION_PATCH);
    ck_assert_msg(xlat_version_string() != NULL, "NULL version string");
    ck_assert_str_eq(xlat_version_string(), XLAT_VERSION_STRING);
    ck_assert_str_eq(XLAT_VERSION_STRING, want);

    /* the Makefile */
    char *mk = read_text(XLAT_TEST_SRCDIR "/Makefile");
    ck_assert_msg(mk != NULL, "cannot read Makefile");
    ck_assert_int_eq(makefile_number(mk, "VERSION_MAJOR"), XLAT_VERSION_MAJOR);
    ck_assert_int_eq(makefile_number(mk, "VERSION_MINOR"), XLAT_VERSION_MINOR);
    ck_assert_int_eq(makefile_number(mk, "VERSION_PATCH"), XLAT_VERSION_PATCH);
    free(mk);

    /* configure.ac */
    char *ac = read_text(XLAT_TEST_SRCDIR "/configure.ac");
    ck_assert_msg(ac != NULL, "cannot read configure.ac");
    configure_version(ac, ac_version, sizeof(ac_version));
    free(ac);
    ck_assert_str_eq(ac_version, want);
}
END_TEST

/* ---- (d) status names ---------------------------------------------------------- */

static const struct {
    int         code;
    const char *name;
} known_codes[] = {
    {XLAT_OK, "XLAT_OK"},
    {XLAT_ERR_INVAL, "XLAT_ERR_INVAL"},
    {XLAT_ERR_NOMEM, "XLAT_ERR_NOMEM"},
    {XLAT_ERR_AGAIN, "XLAT_ERR_AGAIN"},
    {XLAT_ERR_NOT_FOUND, "XLAT_ERR_NOT_FOUND"},
    {XLAT_ERR_FULL, "XLAT_ERR_FULL"},
    {XLAT_ERR_EXIST, "XLAT_ERR_EXIST"},
    {XLAT_ERR_FAULT, "XLAT_ERR_FAULT"},
    {XLAT_ERR_PERM, "XLAT_ERR_PERM"},
    {XLAT_ERR_STATE, "XLAT_ERR_STATE"},
    {XLAT_ERR_UNSUPPORTED, "XLAT_ERR_UNSUPPORTED"},
    {XLAT_ERR_BUSY, "XLAT_ERR_BUSY"},
};
#define N_KNOWN (sizeof(known_codes) / sizeof(known_codes[0]))

static int known_index(int code)
{
    for (size_t i = 0; i < N_KNOWN; i++)
        if (known_codes[i].code == code)
            return (int)i;
    return -1;
}

/* Every `XLAT_ERR_X = -n` of common.h must be in known_codes: a new code
 * needs a name in xlat_strerror() and a row above. */
START_TEST(test_strerror_table_complete)
{
    char *src = read_text(HDRDIR "/common.h");
    ck_assert_msg(src != NULL, "cannot read common.h");
    char *text = strip_c(src);
    size_t found = 0;
    for (const char *p = strstr(text, "XLAT_ERR_"); p; p = strstr(p + 1, "XLAT_ERR_")) {
        size_t len = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
        const char *q = p + len + strspn(p + len, " \t");
        if (*q != '=')
            continue;
        long v = strtol(q + 1, NULL, 10);
        int i = known_index((int)v);
        ck_assert_msg(i >= 0, "%.*s = %ld is not in known_codes", (int)len, p, v);
        ck_assert_msg(strlen(known_codes[i].name) == len &&
                          strncmp(known_codes[i].name, p, len) == 0,
                      "%.*s = %ld, but known_codes says %s", (int)len, p, v, known_codes[i].name);
        found++;
    }
    free(text);
    free(src);
    ck_assert_uint_eq(found, N_KNOWN - 1); /* every code but XLAT_OK */
}
END_TEST

START_TEST(test_strerror_names)
{
    const char *unknown = xlat_strerror(INT_MIN);
    ck_assert_msg(unknown != NULL, "xlat_strerror(INT_MIN) is NULL");
    for (size_t i = 0; i < N_KNOWN; i++) {
        const char *s = xlat_strerror(known_codes[i].code);
        ck_assert_msg(s != NULL, "xlat_strerror(%d) is NULL", known_codes[i].code);
        ck_assert_msg(strstr(s, known_codes[i].name) != NULL, "xlat_strerror(%d) = \"%s\"",
                      known_codes[i].code, s);
        ck_assert_str_ne(s, unknown);
        for (size_t j = 0; j < i; j++)
            ck_assert_str_ne(s, xlat_strerror(known_codes[j].code));
    }
    /* -11..0 are the codes of this release and the first unassigned one. */
    for (int rc = -11; rc <= 0; rc++) {
        const char *s = xlat_strerror(rc);
        ck_assert_msg(s != NULL && *s != '\0', "xlat_strerror(%d) is empty", rc);
        if (known_index(rc) < 0)
            ck_assert_msg(strstr(s, "XLAT_") == NULL, "unknown %d named \"%s\"", rc, s);
    }
    static const int others[] = {1, 2, 100, -12, -100, -1000, INT_MAX, INT_MIN, INT_MIN + 1};
    for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
        const char *s = xlat_strerror(others[i]);
        ck_assert_msg(s != NULL && *s != '\0', "xlat_strerror(%d) is empty", others[i]);
        ck_assert_msg(strstr(s, "XLAT_") == NULL, "unknown %d named \"%s\"", others[i], s);
    }
}
END_TEST

Suite *build_suite(void)
{
    Suite *s = suite_create("build");
    TCase *tc = test_case(s, "symbols");
    tcase_add_test(tc, test_header_scanner);
    tcase_add_test(tc, test_exported_symbols);
    tc = test_case(s, "headers");
    tcase_add_test(tc, test_headers_c99);
    tcase_add_test(tc, test_headers_cxx);
    tcase_add_test(tc, test_experimental_apart);
    tcase_add_test(tc, test_cxx_links_static);
    tc = test_case(s, "version");
    tcase_add_test(tc, test_version_agrees);
    tc = test_case(s, "strerror");
    tcase_add_test(tc, test_strerror_table_complete);
    tcase_add_test(tc, test_strerror_names);
    return s;
}
