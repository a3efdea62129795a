/* `mpiscope report [--sort time|calls|bytes|name] [--limit N | --all] DIR`:
 * prints the text report of a profile again, from DIR/profile.json alone
 * (DIR may also name a .json file, such as a per-rank MPI_Pcontrol(2)
 * flush; a directory without profile.json has its ranks' partial files
 * merged). The renderer is the one the library used for profile.txt
 * (src/profile/render.c, compiled in through report-lib.c), so with the
 * defaults the output is that file, byte for byte.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/profile/pjson.h"
#include "../../src/profile/render.h"
#include "commands.h"
#include "report_cli.h"

static void usage(FILE *o)
{
    fprintf(o, "usage: mpiscope report [--sort time|calls|bytes|name] [--limit N | --all] DIR|FILE.json\n"
               "\n"
               "Prints the profile report of DIR/profile.json (default: sorted by time, 20 rows\n"
               "per table): the same text as DIR/profile.txt.\n");
}

/* The whole of `path`, NUL-terminated, its length in *len; NULL with errno
 * set on failure. Shared with report_cmd.c (report_cli.h). */
char *msc_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? 2 * cap : 65536;
            char *b = realloc(buf, cap);
            if (!b) {
                free(buf);
                fclose(f);
                errno = ENOMEM;
                return NULL;
            }
            buf = b;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        errno = EIO;
        return NULL;
    }
    *len = n;
    return buf;
}

int msc_cmd_report(int argc, char **argv)
{
    msc_render_opts_t opts = msc_render_defaults();
    const char *target = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--sort") == 0 && i + 1 < argc) {
            if (!msc_render_parse_sort(argv[++i], &opts.sort)) {
                fprintf(stderr, "mpiscope report: --sort takes time, calls, bytes or name, not '%s'\n",
                        argv[i]);
                return 2;
            }
        } else if (strcmp(a, "--limit") == 0 && i + 1 < argc) {
            char *end = NULL;
            long v = strtol(argv[++i], &end, 10);
            if (!*argv[i] || *end || v < 1 || v > 1000000000) {
                fprintf(stderr, "mpiscope report: --limit takes a number of rows from 1, not '%s'\n",
                        argv[i]);
                return 2;
            }
            opts.limit = (int)v;
        } else if (strcmp(a, "--all") == 0) {
            opts.limit = 0;
        } else if (a[0] == '-' || target) {
            usage(stderr);
            return 2;
        } else {
            target = a;
        }
    }
    if (!target) {
        usage(stderr);
        return 2;
    }
    char path[4096];
    struct stat sb;
    if (stat(target, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        snprintf(path, sizeof path, "%s/profile.json", target);
        /* A run cut short: merge the ranks' partial files (render.c). */
        if (access(path, F_OK) != 0 && errno == ENOENT)
            return msc_profile_render_partial(stdout, stderr, target, &opts) == 0 ? 0 : 1;
    } else {
        snprintf(path, sizeof path, "%s", target);
    }
    size_t len = 0;
    char *text = msc_slurp(path, &len);
    if (!text) {
        fprintf(stderr, "mpiscope report: cannot read %s: %s\n", path, strerror(errno));
        return 1;
    }
    char err[256];
    msc_json_doc_t *doc = msc_json_parse(text, len, err, sizeof err);
    free(text);
    if (!doc) {
        fprintf(stderr, "mpiscope report: %s is not valid JSON: %s\n", path, err);
        return 1;
    }
    /* A profile of a newer schema than this program knows is refused: its
     * fields may not mean what they meant. */
    const msc_json_t *ver = msc_json_get(msc_json_root(doc), "schema_version");
    if (ver && msc_json_int(msc_json_root(doc), "schema_version") > MSC_PROFILE_SCHEMA) {
        fprintf(stderr, "mpiscope report: %s has profile schema version %lld; this mpiscope "
                        "reads version %d and older (a newer mpiscope wrote it)\n", path,
                (long long)msc_json_int(msc_json_root(doc), "schema_version"),
                MSC_PROFILE_SCHEMA);
        msc_json_free(doc);
        return 1;
    }
    int rc = msc_profile_render(stdout, msc_json_root(doc), &opts) == 0 ? 0 : 1;
    msc_json_free(doc);
    return rc;
}
