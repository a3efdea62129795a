/* The closing summary (banner.h), from the files of an output directory.
 *
 * Shares of time: MPI time over profiled time, all ranks (summary.mpi_pct),
 * and each function's time over all MPI time. Check findings are counted per
 * "severity" when checks.json gives one, else as findings. The trace's size
 * is the sum of the files under trace/ at the time of printing.
 */
#include "banner.h"

#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pjson.h"

static void human(char *buf, size_t len, double b)
{
    const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int i = 0;
    while (b >= 1024 && i < 4) b /= 1024, i++;
    snprintf(buf, len, i ? "%.1f %s" : "%.0f %s", b, u[i]);
}

/* Bytes of the regular files under `path`, depth-first (a trace directory:
 * a few levels). */
static uint64_t tree_bytes(const char *path, int depth)
{
    DIR *d = depth < 8 ? opendir(path) : NULL;
    if (!d) return 0;
    uint64_t sum = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char p[4096];
        struct stat st;
        if (snprintf(p, sizeof p, "%s/%s", path, e->d_name) >= (int)sizeof p || lstat(p, &st)) continue;
        if (S_ISDIR(st.st_mode)) sum += tree_bytes(p, depth + 1);
        else if (S_ISREG(st.st_mode)) sum += (uint64_t)st.st_size;
    }
    closedir(d);
    return sum;
}

int msc_banner_print(FILE *o, const char *dir, const char *shown)
{
    msc_json_doc_t *doc = msc_json_load(dir, "profile.json");
    if (!doc) return 0;
    const msc_json_t *root = msc_json_root(doc), *sum = msc_json_get(root, "summary");
    const msc_json_t *hosts = msc_json_get(msc_json_get(root, "run"), "hosts");
    int lines = 0;
    long long nh = hosts && hosts->type == MSC_JARR ? (long long)hosts->n : 0;
    fprintf(o, "mpiscope: %s, %lld rank(s)", msc_json_str(root, "program", "?"),
            (long long)msc_json_int(root, "ranks"));
    if (nh) fprintf(o, " on %lld host(s)", nh);
    fprintf(o, ": wall %.3f s, MPI %.1f %% of the time, imbalance %.1f %%\n",
            (double)msc_json_int(sum, "wall_ns_max") / 1e9, msc_json_num(sum, "mpi_pct"),
            msc_json_num(sum, "imbalance_pct"));
    lines++;

    /* The three functions with the most time (profile.json lists them by time). */
    const msc_json_t *fns = msc_json_get(root, "functions");
    double mpi = (double)msc_json_int(sum, "mpi_ns_total");
    if (fns && fns->type == MSC_JARR && fns->n && mpi > 0) {
        fprintf(o, "mpiscope: most MPI time:");
        int k = 0;
        for (const msc_json_t *f = fns->child; f && k < 3; f = f->next, k++)
            fprintf(o, "%s %s %.1f %%", k ? "," : "", msc_json_str(f, "name", "?"),
                    100.0 * (double)msc_json_int(f, "time_ns") / mpi);
        fputc('\n', o);
        lines++;
    }

    const msc_json_t *io = msc_json_get(root, "io");
    const msc_json_t *files = msc_json_get(io, "files");
    if (files && files->type == MSC_JARR && files->n) {
        char r[32], w[32];
        human(r, sizeof r, msc_json_num(io, "bytes_read"));
        human(w, sizeof w, msc_json_num(io, "bytes_written"));
        fprintf(o, "mpiscope: MPI-IO: %zu file(s), %s read, %s written, I/O imbalance %.1f %%\n",
                files->n, r, w, msc_json_num(io, "imbalance_pct"));
        lines++;
    }
    msc_json_free(doc);

    msc_json_doc_t *chk = msc_json_load(dir, "checks.json");
    if (chk) {
        const msc_json_t *cr = msc_json_root(chk), *fs = msc_json_get(cr, "findings");
        /* Severities in order of first appearance, with their counts. */
        const char *sev[8];
        long long cnt[8] = {0};
        int ns = 0;
        for (const msc_json_t *f = fs && fs->type == MSC_JARR ? fs->child : NULL; f; f = f->next) {
            const char *s = msc_json_str(f, "severity", "finding");
            int i = 0;
            while (i < ns && strcmp(sev[i], s)) i++;
            if (i == ns && ns < 8) sev[ns++] = s;
            if (i < ns) cnt[i]++;
        }
        if (!ns) {
            fprintf(o, "mpiscope: checks: no findings\n");
        } else {
            fprintf(o, "mpiscope: checks:");
            for (int i = 0; i < ns; i++)
                fprintf(o, "%s %lld %s%s", i ? "," : "", cnt[i], sev[i], cnt[i] == 1 ? "" : "s");
            fprintf(o, " (%s/checks.txt)\n", shown);
        }
        lines++;
        msc_json_free(chk);
    }

    char trace[4096 + 16];
    snprintf(trace, sizeof trace, "%s/trace", dir);
    struct stat st;
    if (stat(trace, &st) == 0 && S_ISDIR(st.st_mode)) {
        char b[32];
        human(b, sizeof b, (double)tree_bytes(trace, 0));
        fprintf(o, "mpiscope: trace: %s in %s/trace\n", b, shown);
        lines++;
    }
    fprintf(o, "mpiscope: next: mpiscope report %s (add --html for one page to open in a browser)\n",
            shown);
    return lines + 1;
}

int msc_banner_ranks(const char *dir)
{
    msc_json_doc_t *doc = msc_json_load(dir, "profile.json");
    if (!doc) return -1;
    int n = (int)msc_json_int(msc_json_root(doc), "ranks");
    msc_json_free(doc);
    return n;
}

int msc_banner_spawned(const char *dir)
{
    msc_json_doc_t *doc = msc_json_load(dir, "profile.json");
    if (!doc) return 0;
    int n = (int)msc_json_int(msc_json_root(doc), "spawned_worlds");
    msc_json_free(doc);
    return n;
}
