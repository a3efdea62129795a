/* `mpiscope report` and the correctness checks. Each rank of a run under
 * --check appends its findings to DIR/checks.rank<R>.jsonl the moment it
 * finds them (src/check/findings.c); a run that reaches MPI_Finalize merges
 * them into DIR/checks.txt and DIR/checks.json and removes the per-rank
 * files. When the run died first (MPI aborted it, a signal, a deadlock
 * exit), the per-rank files stay, and the report is assembled here from
 * them with the library's own merging and writing code (findings_io.c,
 * compiled into this program from the same source), so that both paths
 * write the same files.
 */
#include <glob.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "../../src/check/findings_io.c"
#include "report_cli.h"

static bool newer(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec != b->tv_sec ? a->tv_sec > b->tv_sec : a->tv_nsec > b->tv_nsec;
}

int msc_report_checks(const char *dir)
{
    char pat[4200], json[4200];
    snprintf(pat, sizeof pat, "%s/checks.rank*.jsonl", dir);
    snprintf(json, sizeof json, "%s/checks.json", dir);
    struct stat js;
    bool have_json = stat(json, &js) == 0;
    glob_t g;
    if (glob(pat, 0, NULL, &g) != 0 || g.gl_pathc == 0) {
        globfree(&g);
        return have_json ? 1 : 0;
    }
    /* A report written after the last finding (a deadlock's reporter
     * writes one before the run ends) is complete. */
    bool stale = !have_json;
    for (size_t i = 0; i < g.gl_pathc && !stale; i++) {
        struct stat st;
        if (stat(g.gl_pathv[i], &st) == 0 && newer(&st.st_mtim, &js.st_mtim)) stale = true;
    }
    if (!stale) {
        globfree(&g);
        return 1;
    }
    chk_io_list_t l = {0};
    int files = 0;
    for (size_t i = 0; i < g.gl_pathc; i++)
        if (chk_io_read(g.gl_pathv[i], &l) >= 0) files++;
    globfree(&g);
    int n = chk_io_merge(l.f, l.n);
    char err[512];
    bool ok = chk_io_write(dir, l.f, n, l.s, l.ns,
                           "the run ended before MPI_Finalize; assembled by mpiscope report from "
                           "the ranks' checks.rank<R>.jsonl files",
                           err, sizeof err);
    chk_io_list_free(&l);
    if (!ok) {
        fprintf(stderr, "mpiscope report: %s\n", err);
        return have_json ? 1 : 0;
    }
    fprintf(stderr,
            "mpiscope report: the run ended before MPI_Finalize; checks.txt and checks.json "
            "assembled from %d rank%s' findings (%d finding%s)\n",
            files, files == 1 ? "" : "s", n, n == 1 ? "" : "s");
    return 1;
}

void msc_report_checks_print(const char *dir, FILE *out)
{
    char path[4200], line[4096];
    snprintf(path, sizeof path, "%s/checks.txt", dir);
    FILE *f = fopen(path, "r");
    if (!f) return;
    fputs("\nCorrectness checks\n", out);
    while (fgets(line, sizeof line, f)) fprintf(out, "  %s", line);
    fclose(f);
}
