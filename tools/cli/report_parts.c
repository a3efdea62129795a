/* The trace in parts (src/trace/parts.c): what `mpiscope report` says about
 * it, and --part to merge the nodes' copies.
 *
 * A run whose output directory was not shared by every node leaves
 * trace/parts.txt in rank 0's copy: "rank R host H" for each rank whose
 * event files are in the copy on its host. msc_report_parts_missing names
 * the ranks whose main location's event file (trace/traces/<R>.evt; a
 * rank's first location has the rank as its number) is not here: a report
 * of this copy alone is partial, and says exactly which ranks' parts are
 * elsewhere. msc_report_parts_merge puts rank 0's copy and the other copies
 * together in a new directory of symbolic links (nothing is copied, the
 * copies are not changed; the first copy that has a file wins), which is
 * then reported like any run; msc_report_parts_cleanup removes it.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report_cli.h"

char *msc_report_parts_missing(const char *dir)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/trace/parts.txt", dir);
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    size_t cap = 256, len = 0;
    char *msg = malloc(cap);
    int missing = 0;
    char line[512];
    if (msg) msg[0] = 0;
    while (msg && fgets(line, sizeof line, f)) {
        int r;
        char host[256];
        if (line[0] == '#' || sscanf(line, "rank %d host %255s", &r, host) != 2) continue;
        char evt[PATH_MAX + 64];
        snprintf(evt, sizeof evt, "%s/trace/traces/%d.evt", dir, r);
        if (access(evt, F_OK) == 0) continue;
        char item[320];
        int n = snprintf(item, sizeof item, "%s%d (%s)", missing ? ", " : "", r, host);
        if (len + (size_t)n + 1 > cap) {
            cap = (len + (size_t)n + 1) * 2;
            char *m = realloc(msg, cap);
            if (!m) break;
            msg = m;
        }
        memcpy(msg + len, item, (size_t)n + 1);
        len += (size_t)n;
        missing++;
    }
    fclose(f);
    if (!msg || !missing) {
        free(msg);
        return NULL;
    }
    const char *fmt = "the trace is in parts (the output directory was not shared by every "
                      "node): the events of rank%s %s are in the copy of the output directory "
                      "on %s host; copy them into %s/trace/traces/ or give those copies with "
                      "--part";
    size_t need = strlen(fmt) + len + strlen(dir) + 16;
    char *out = malloc(need);
    if (out) snprintf(out, need, fmt, missing > 1 ? "s" : "", msg, missing > 1 ? "each one's" : "its", dir);
    free(msg);
    return out;
}

/* Links every entry of `from` into `to` that `to` does not have yet;
 * entries named in `recurse` become directories of their own, filled the
 * same way from every copy by the caller. */
static int link_entries(const char *from, const char *to, const char *recurse)
{
    DIR *d = opendir(from);
    if (!d) return -1;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (recurse && !strcmp(e->d_name, recurse)) continue;
        char src[PATH_MAX], dst[PATH_MAX];
        char *abs = realpath(from, NULL);
        if (!abs) { rc = -1; break; }
        snprintf(src, sizeof src, "%s/%s", abs, e->d_name);
        free(abs);
        snprintf(dst, sizeof dst, "%s/%s", to, e->d_name);
        if (symlink(src, dst) != 0 && errno != EEXIST) { rc = -1; break; }
    }
    closedir(d);
    return rc;
}

int msc_report_parts_merge(const char *target, char **parts, int nparts, char *merged, size_t len)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(merged, len, "%s/mpiscope-parts-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(merged)) {
        fprintf(stderr, "mpiscope report: --part: cannot make a directory in %s: %s\n",
                tmp && *tmp ? tmp : "/tmp", strerror(errno));
        return 1;
    }
    char trace[PATH_MAX], traces[PATH_MAX];
    snprintf(trace, sizeof trace, "%s/trace", merged);
    snprintf(traces, sizeof traces, "%s/trace/traces", merged);
    if (link_entries(target, merged, "trace") != 0 || mkdir(trace, 0700) != 0 ||
        mkdir(traces, 0700) != 0) {
        fprintf(stderr, "mpiscope report: --part: cannot read %s or fill %s\n", target, merged);
        return 1;
    }
    char sub[PATH_MAX];
    snprintf(sub, sizeof sub, "%s/trace", target);
    if (link_entries(sub, trace, "traces") != 0) {
        fprintf(stderr, "mpiscope report: %s has no trace to merge parts into\n", target);
        return 1;
    }
    for (int i = -1; i < nparts; i++) {
        snprintf(sub, sizeof sub, "%s/trace/traces", i < 0 ? target : parts[i]);
        if (link_entries(sub, traces, NULL) != 0) {
            fprintf(stderr, "mpiscope report: --part %s: no trace/traces/ in it\n",
                    i < 0 ? target : parts[i]);
            return 1;
        }
    }
    /* The merged archive is whole: no parts.txt in it. */
    char pt[PATH_MAX + 16];
    snprintf(pt, sizeof pt, "%s/parts.txt", trace);
    unlink(pt);
    return 0;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)ftw;
    return flag == FTW_DP ? rmdir(path) : unlink(path);
}

void msc_report_parts_cleanup(const char *merged)
{
    if (merged && merged[0]) nftw(merged, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}
