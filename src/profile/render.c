/* The text report: summary, top functions, top call sites with file:line,
 * per-rank spread, message-size histograms and the heaviest pairs of the
 * communication matrix. Tables are sorted copies of the JSON arrays; every
 * number printed is a number of profile.json or a ratio of two of them.
 */
#include "render.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

msc_render_opts_t msc_render_defaults(void)
{
    return (msc_render_opts_t){.sort = MSC_SORT_TIME, .limit = 20};
}

int msc_render_parse_sort(const char *word, msc_sort_t *out)
{
    static const char *const names[] = {"time", "calls", "bytes", "name"};
    for (int i = 0; i < 4; i++)
        if (strcmp(word, names[i]) == 0) {
            *out = (msc_sort_t)i;
            return 1;
        }
    return 0;
}

static msc_sort_t sort_key;

static const char *row_name(const msc_json_t *r)
{
    const char *n = msc_json_str(r, "name", NULL);
    return n ? n : msc_json_str(r, "function", "");
}

static int row_cmp(const void *a, const void *b)
{
    const msc_json_t *x = *(const msc_json_t *const *)a, *y = *(const msc_json_t *const *)b;
    int64_t vx = 0, vy = 0;
    switch (sort_key) {
    case MSC_SORT_TIME: vx = msc_json_int(x, "time_ns"), vy = msc_json_int(y, "time_ns"); break;
    case MSC_SORT_CALLS: vx = msc_json_int(x, "calls"), vy = msc_json_int(y, "calls"); break;
    case MSC_SORT_BYTES:
        vx = msc_json_int(x, "bytes_sent") + msc_json_int(x, "bytes_recv");
        vy = msc_json_int(y, "bytes_sent") + msc_json_int(y, "bytes_recv");
        break;
    case MSC_SORT_NAME: break;
    }
    if (vx != vy) return vx < vy ? 1 : -1;
    return strcmp(row_name(x), row_name(y));
}

/* The rows of array `a`, sorted; *n gets their number. Caller frees. */
static const msc_json_t **sorted(const msc_json_t *a, msc_sort_t key, size_t *n)
{
    *n = 0;
    if (!a || a->type != MSC_JARR || !a->n) return NULL;
    const msc_json_t **rows = malloc(a->n * sizeof *rows);
    if (!rows) return NULL;
    for (const msc_json_t *c = a->child; c; c = c->next)
        if (c->type == MSC_JOBJ) rows[(*n)++] = c;
    sort_key = key;
    qsort(rows, *n, sizeof *rows, row_cmp);
    return rows;
}

static void human_bytes(char *buf, size_t len, double b)
{
    const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int i = 0;
    while (b >= 1024 && i < 5) b /= 1024, i++;
    if (i == 0) snprintf(buf, len, "%.0f %s", b, u[i]);
    else snprintf(buf, len, "%.1f %s", b, u[i]);
}

static double sec(int64_t ns)
{
    return (double)ns / 1e9;
}

static double usec(int64_t ns)
{
    return (double)ns / 1e3;
}

static void stats_header(FILE *o, const char *first)
{
    fprintf(o, "  %-24s %10s %11s %6s %9s %9s %9s %10s %10s %5s %16s %16s\n", first, "calls",
            "time(s)", "%mpi", "min(us)", "mean(us)", "max(us)", "sent", "received", "ranks",
            "rank min(s)@r", "rank max(s)@r");
}

static void stats_row(FILE *o, const msc_json_t *r, const char *label, int64_t mpi_total)
{
    int64_t calls = msc_json_int(r, "calls"), t = msc_json_int(r, "time_ns");
    char sent[32], recv[32], mn[32], mx[32];
    human_bytes(sent, sizeof sent, msc_json_num(r, "bytes_sent"));
    human_bytes(recv, sizeof recv, msc_json_num(r, "bytes_recv"));
    snprintf(mn, sizeof mn, "%.6f@%lld", sec(msc_json_int(r, "rank_time_min_ns")),
             (long long)msc_json_int(r, "rank_time_min_at"));
    snprintf(mx, sizeof mx, "%.6f@%lld", sec(msc_json_int(r, "rank_time_max_ns")),
             (long long)msc_json_int(r, "rank_time_max_at"));
    fprintf(o, "  %-24s %10lld %11.6f %6.2f %9.2f %9.2f %9.2f %10s %10s %5lld %16s %16s\n", label,
            (long long)calls, sec(t), mpi_total ? 100.0 * (double)t / (double)mpi_total : 0.0,
            usec(msc_json_int(r, "time_min_ns")), calls ? usec(t) / (double)calls : 0.0,
            usec(msc_json_int(r, "time_max_ns")), sent, recv, (long long)msc_json_int(r, "ranks"),
            mn, mx);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void site_label(char *buf, size_t len, const msc_json_t *site)
{
    const msc_json_t *frames = msc_json_get(site, "frames");
    const msc_json_t *f = frames && frames->type == MSC_JARR ? frames->child : NULL;
    size_t used = 0;
    buf[0] = 0;
    for (int d = 0; f && used + 1 < len; f = f->next, d++) {
        const char *file = msc_json_str(f, "file", "");
        const char *sym = msc_json_str(f, "symbol", "");
        int n;
        if (*file)
            n = snprintf(buf + used, len - used, "%s%s:%lld (%s)", d ? " < " : "", base_name(file),
                         (long long)msc_json_int(f, "line"), *sym ? sym : "?");
        else
            n = snprintf(buf + used, len - used, "%s%s+%s (%s)", d ? " < " : "",
                         base_name(msc_json_str(f, "module", "?")), msc_json_str(f, "offset", "?"),
                         *sym ? sym : "?");
        if (n < 0) break;
        used += (size_t)n < len - used ? (size_t)n : len - used - 1;
    }
}

int msc_profile_render(FILE *o, const msc_json_t *root, const msc_render_opts_t *opts)
{
    if (!root || root->type != MSC_JOBJ || !msc_json_get(root, "schema_version")) {
        fprintf(o, "not an mpiscope profile (no schema_version)\n");
        return -1;
    }
    size_t limit = opts->limit > 0 ? (size_t)opts->limit : SIZE_MAX;
    const msc_json_t *sum = msc_json_get(root, "summary");
    int64_t mpi_total = msc_json_int(sum, "mpi_ns_total");
    fprintf(o, "mpiscope profile of %s: %lld rank(s), %s, schema %lld",
            msc_json_str(root, "program", "?"), (long long)msc_json_int(root, "ranks"),
            msc_json_str(root, "mpi", "?"), (long long)msc_json_int(root, "schema_version"));
    const msc_json_t *fl = msc_json_get(root, "flush");
    if (fl)
        fprintf(o, " (partial: MPI_Pcontrol(2) flush %lld of rank %lld)",
                (long long)msc_json_int(fl, "index"), (long long)msc_json_int(fl, "rank"));
    fprintf(o, "\n\nSummary\n");
    fprintf(o, "  wall time, longest rank        %12.6f s\n", sec(msc_json_int(sum, "wall_ns_max")));
    fprintf(o, "  profiled time, all ranks       %12.6f s\n", sec(msc_json_int(sum, "profiled_ns_total")));
    fprintf(o, "  MPI time, all ranks            %12.6f s (%.2f%% of profiled time)\n",
            sec(mpi_total), msc_json_num(sum, "mpi_pct"));
    fprintf(o, "  MPI time per rank min/mean/max %12.6f s @%lld / %.6f s / %.6f s @%lld\n",
            sec(msc_json_int(sum, "mpi_ns_rank_min")), (long long)msc_json_int(sum, "mpi_ns_rank_min_at"),
            msc_json_num(sum, "mpi_ns_rank_mean") / 1e9, sec(msc_json_int(sum, "mpi_ns_rank_max")),
            (long long)msc_json_int(sum, "mpi_ns_rank_max_at"));
    fprintf(o, "  imbalance (max-mean)/max       %12.2f %%\n", msc_json_num(sum, "imbalance_pct"));
    fprintf(o, "  MPI calls                      %12lld\n", (long long)msc_json_int(sum, "calls"));

    size_t n;
    const msc_json_t **rows = sorted(msc_json_get(root, "functions"), opts->sort, &n);
    fprintf(o, "\nFunctions (%zu, sorted by %s)\n", n,
            (const char *[]){"time", "calls", "bytes", "name"}[opts->sort]);
    stats_header(o, "function");
    for (size_t i = 0; i < n && i < limit; i++) stats_row(o, rows[i], row_name(rows[i]), mpi_total);
    if (n > limit) fprintf(o, "  ... %zu more\n", n - limit);

    fprintf(o, "\nMessage sizes (calls per size, bytes)\n");
    for (size_t i = 0; i < n && i < limit; i++) {
        const msc_json_t *h = msc_json_get(rows[i], "histogram");
        if (!h || h->type != MSC_JARR || !h->n) continue;
        fprintf(o, "  %-24s", row_name(rows[i]));
        for (const msc_json_t *b = h->child; b; b = b->next) {
            int64_t lo = msc_json_int(b, "lo"), hi = msc_json_int(b, "hi");
            if (lo == hi) fprintf(o, " [%lld]:%lld", (long long)lo, (long long)msc_json_int(b, "count"));
            else fprintf(o, " [%lld-%lld]:%lld", (long long)lo, (long long)hi, (long long)msc_json_int(b, "count"));
        }
        fputc('\n', o);
    }
    free(rows);

    rows = sorted(msc_json_get(root, "callsites"), opts->sort, &n);
    fprintf(o, "\nCall sites (%zu, depth %lld)\n", n, (long long)msc_json_int(root, "callsite_depth"));
    stats_header(o, "function");
    for (size_t i = 0; i < n && i < limit; i++) {
        char where[1024];
        site_label(where, sizeof where, rows[i]);
        stats_row(o, rows[i], row_name(rows[i]), mpi_total);
        fprintf(o, "      at %s\n", where);
    }
    if (n > limit) fprintf(o, "  ... %zu more\n", n - limit);
    free(rows);

    const msc_json_t *m = msc_json_get(root, "matrix");
    fprintf(o, "\nCommunication matrix (world ranks, sender to receiver)\n");
    if (!msc_json_num(m, "recorded")) {
        fprintf(o, "  not recorded: more than %lld ranks (MPISCOPE_PROFILE_MATRIX_RANKS)\n",
                (long long)msc_json_int(m, "ranks_limit"));
    } else {
        const char *cls[] = {"p2p", "collective"};
        for (int c = 0; c < 2; c++) {
            const msc_json_t *t = msc_json_get(m, cls[c]);
            char b[32];
            human_bytes(b, sizeof b, msc_json_num(t, "bytes"));
            fprintf(o, "  %-10s %12lld messages %12s\n", cls[c], (long long)msc_json_int(t, "messages"), b);
        }
        const msc_json_t *pairs = msc_json_get(m, "pairs");
        size_t np = pairs && pairs->type == MSC_JARR ? pairs->n : 0;
        fprintf(o, "  heaviest pairs (%zu)\n  %6s %6s %-10s %12s %12s\n", np, "from", "to", "class",
                "messages", "bytes");
        size_t i = 0;
        for (const msc_json_t *p = np ? pairs->child : NULL; p && i < limit; p = p->next, i++)
            fprintf(o, "  %6lld %6lld %-10s %12lld %12lld\n", (long long)msc_json_int(p, "from"),
                    (long long)msc_json_int(p, "to"), msc_json_str(p, "class", "?"),
                    (long long)msc_json_int(p, "messages"), (long long)msc_json_int(p, "bytes"));
        if (np > limit) fprintf(o, "  ... %zu more\n", np - limit);
        const msc_json_t *om = msc_json_get(m, "omitted");
        if (msc_json_int(om, "pairs"))
            fprintf(o, "  %lld lighter pairs left out (MPISCOPE_PROFILE_MATRIX_PAIRS): %lld messages, %lld bytes\n",
                    (long long)msc_json_int(om, "pairs"), (long long)msc_json_int(om, "messages"),
                    (long long)msc_json_int(om, "bytes"));
    }
    const msc_json_t *d = msc_json_get(root, "dropped");
    int64_t d1 = msc_json_int(d, "callsite_calls"), d2 = msc_json_int(d, "callsites_merged"),
            d3 = msc_json_int(d, "requests");
    if (d1 || d2 || d3) {
        fprintf(o, "\nDropped (memory budgets)\n");
        if (d1) fprintf(o, "  %lld calls without a call site: a thread's table was full (MPISCOPE_PROFILE_SITES)\n", (long long)d1);
        if (d2) fprintf(o, "  %lld call sites left out of the merged report (MPISCOPE_PROFILE_SITES)\n", (long long)d2);
        if (d3) fprintf(o, "  %lld requests not tracked: their received bytes are unknown (MPISCOPE_MAX_REQUESTS)\n", (long long)d3);
    }
    return 0;
}
