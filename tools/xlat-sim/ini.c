/* Reading an INI file through libinih. libinih (Debian 12's version 55,
 * built without INI_HANDLER_LINENO or INI_CALL_HANDLER_ON_NEW_SECTION) gives
 * the handler no line number and no call for a section header, so the file
 * is read through our own line reader (ini_parse_stream): it counts the
 * lines, which is the line the handler's pair comes from, and checks each
 * "[section]" header as it passes, so that an empty unknown section is an
 * error too. The first error of the file is reported. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <ini.h>

#include "config.h"

struct ini_read {
    FILE *f;
    const char *path;
    int line;           /* lines read so far: the current line's number */
    int failed;         /* err holds the first error of ours, at line fail_line */
    int fail_line;
    sim_config *cfg;
    sim_error *err;
};

/* "[name]" (after blanks) names the section; anything else is not one. */
static void check_header(struct ini_read *r, const char *text)
{
    while (*text == ' ' || *text == '\t')
        text++;
    if (*text != '[' || r->failed)
        return;
    const char *end = strchr(text, ']');
    if (!end)
        return; /* libinih reports it as a syntax error */
    char name[64];
    size_t n = (size_t)(end - text - 1);
    if (n >= sizeof(name))
        n = sizeof(name) - 1;
    memcpy(name, text + 1, n);
    name[n] = '\0';
    if (!sim_section_known(name)) {
        char where[1100];
        snprintf(where, sizeof(where), "%s:%d", r->path, r->line);
        /* sim_config_set words the message, with the list of sections */
        sim_config_set(r->cfg, name, "", "", where, r->err);
        r->failed = 1;
        r->fail_line = r->line;
    }
}

/* libinih reads a line into its own buffer of `size` bytes (INI_MAX_LINE,
 * 200 in Debian's build): a longer line would come as pieces, each taken
 * for a line of its own. Refuse it instead and end the file there. */
static int line_too_long(struct ini_read *r, const char *buf, int size)
{
    size_t n = strlen(buf);
    if (n == 0 || buf[n - 1] == '\n' || feof(r->f))
        return 0;
    if (!r->failed) {
        sim_fail(r->err, "%s:%d: line longer than %d characters (use --set for longer values)",
                 r->path, r->line, size - 2);
        r->failed = 1;
        r->fail_line = r->line;
    }
    return 1;
}

static char *reader(char *buf, int size, void *user)
{
    struct ini_read *r = user;
    if (!fgets(buf, size, r->f))
        return NULL;
    r->line++;
    if (line_too_long(r, buf, size))
        return NULL;
    check_header(r, buf);
    return buf;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    struct ini_read *r = user;
    if (r->failed)
        return 1; /* keep the first error; say the line is fine so libinih stays quiet */
    char where[1100];
    snprintf(where, sizeof(where), "%s:%d", r->path, r->line);
    if (!section[0]) {
        sim_fail(r->err, "%s: '%s' is outside any [section]", where, name);
        r->failed = 1;
        r->fail_line = r->line;
        return 1;
    }
    if (sim_config_set(r->cfg, section, name, value, where, r->err) != 0) {
        r->failed = 1;
        r->fail_line = r->line;
    }
    return 1;
}

int sim_config_load_ini(sim_config *cfg, const char *path, sim_error *err)
{
    struct ini_read r = {.path = path, .cfg = cfg, .err = err};
    r.f = fopen(path, "r");
    if (!r.f)
        return sim_fail(err, "%s: %s", path, strerror(errno));
    int rc = ini_parse_stream(reader, &r, handler, &r);
    fclose(r.f);
    /* libinih's rc is its first syntax error's line (our handler never
     * fails a line): the earlier of it and ours is the one to report. */
    if (r.failed && (rc <= 0 || r.fail_line <= rc))
        return -1;
    if (rc > 0)
        return sim_fail(err, "%s:%d: syntax error (expected [section] or key = value)", path,
                        rc);
    if (rc != 0)
        return sim_fail(err, "%s: libinih could not read it (error %d)", path, rc);
    return 0;
}
