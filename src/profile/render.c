/* The text report: summary, top functions, top call sites with file:line,
 * per-rank spread, message-size histograms and the heaviest pairs of the
 * communication matrix. Tables are sorted copies of the JSON arrays; every
 * number printed is a number of profile.json or a ratio of two of them.
 */
#include "render.h"
#include "pop.h"
#include "../core/json_out.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Calls `fn` for each name of a Slurm node list ("msn[1-3,5],login",
 * "n[08-10]" keeps its zero padding; one bracket group per name). Returns
 * the number of names, or -1 for a list it cannot read. */
static long nodelist_each(const char *list, void (*fn)(const char *name, void *arg), void *arg)
{
    long count = 0;
    char name[256];
    for (const char *p = list; *p;) {
        /* One item: up to the next comma outside brackets. */
        const char *open = NULL, *close = NULL, *end = p;
        for (; *end && (*end != ',' || (open && !close)); end++) {
            if (*end == '[' && (open || end == p)) return -1;
            if (*end == '[') open = end;
            if (*end == ']' && (!open || close)) return -1;
            if (*end == ']') close = end;
        }
        if ((open && !close) || end == p) return -1;
        size_t plen = (size_t)((open ? open : end) - p);
        size_t slen = close ? (size_t)(end - close - 1) : 0;
        if (plen + slen + 24 >= sizeof name) return -1;
        if (!open) {
            snprintf(name, sizeof name, "%.*s", (int)plen, p);
            fn(name, arg);
            count++;
        } else {
            /* Ranges "1-3,5", each bound's digits giving the width. */
            for (const char *r = open + 1; r < close;) {
                if (*r < '0' || *r > '9') return -1;
                char *e;
                unsigned long lo = strtoul(r, &e, 10), hi = lo;
                int width = (int)(e - r);
                r = e;
                if (*r == '-') {
                    if (r[1] < '0' || r[1] > '9') return -1;
                    hi = strtoul(r + 1, &e, 10);
                    r = e;
                }
                if (hi < lo || hi - lo > 100000 || (*r != ',' && r != close)) return -1;
                if (*r == ',') r++;
                for (unsigned long v = lo; v <= hi; v++, count++) {
                    snprintf(name, sizeof name, "%.*s%0*lu%.*s", (int)plen, p, width, v,
                             (int)slen, close + 1);
                    fn(name, arg);
                }
            }
        }
        p = *end ? end + 1 : end;
    }
    return count;
}

/* A host name as Slurm names the node: up to its first dot. */
static bool same_node(const char *host, const char *node)
{
    size_t n = strlen(node);
    return strncmp(host, node, n) == 0 && (host[n] == 0 || host[n] == '.');
}

typedef struct {
    const msc_json_t *hosts;
    bool *host_in_list; /* per run.hosts entry */
    long with_ranks;    /* nodes of the list with a rank */
    FILE *idle;         /* the names of those without */
    long nidle;
} nodes_seen_t;

static void node_seen(const char *node, void *arg)
{
    nodes_seen_t *s = arg;
    bool used = false;
    size_t i = 0;
    for (const msc_json_t *h = s->hosts ? s->hosts->child : NULL; h; h = h->next, i++)
        if (same_node(msc_json_str(h, "name", ""), node)) s->host_in_list[i] = used = true;
    if (used) {
        s->with_ranks++;
    } else {
        if (s->nidle < 8) fprintf(s->idle, "%s%s", s->nidle ? ", " : "", node);
        s->nidle++;
    }
}

bool msc_render_slurm(FILE *o, const msc_json_t *run)
{
    const msc_json_t *slurm = msc_json_get(run, "slurm");
    if (!slurm) return false;
    fprintf(o, "job %s", msc_json_str(slurm, "job_id", "?"));
    const char *step = msc_json_str(slurm, "step_id", NULL);
    const char *cluster = msc_json_str(slurm, "cluster", NULL);
    const char *list = msc_json_str(slurm, "nodelist", NULL);
    if (step) fprintf(o, ", step %s", step);
    if (cluster) fprintf(o, ", cluster %s", cluster);
    if (!list) {
        fprintf(o, " (no node list)");
        return true;
    }
    const msc_json_t *hosts = msc_json_get(run, "hosts");
    size_t nh = hosts && hosts->type == MSC_JARR ? hosts->n : 0;
    char *idle = NULL;
    size_t idle_len = 0;
    nodes_seen_t s = {.hosts = nh ? hosts : NULL, .host_in_list = calloc(nh + 1, sizeof(bool)),
                      .idle = open_memstream(&idle, &idle_len)};
    long n = s.host_in_list && s.idle ? nodelist_each(list, node_seen, &s) : -1;
    if (s.idle) fclose(s.idle);
    fprintf(o, ": nodes %s", list);
    if (n < 0) {
        fprintf(o, " (a node list this report cannot read)");
    } else {
        fprintf(o, " (%ld), ranks on %s%ld", n, s.with_ranks == n ? "all " : "", s.with_ranks);
        if (s.nidle) fprintf(o, "; none on %s%s", idle, s.nidle > 8 ? ", ..." : "");
        size_t i = 0, outside = 0;
        for (const msc_json_t *h = nh ? hosts->child : NULL; h; h = h->next, i++) {
            if (s.host_in_list[i]) continue;
            fprintf(o, "%s%s", outside++ ? ", " : "; ranks on hosts outside the job: ",
                    msc_json_str(h, "name", "?"));
        }
    }
    free(idle);
    free(s.host_in_list);
    return true;
}

/* The run's metadata (profile.json "run"; absent in older profiles). */
static void render_run(FILE *o, const msc_json_t *root)
{
    const msc_json_t *run = msc_json_get(root, "run");
    if (!run) return;
    /* Several programs in one world (MPMD, MPI_Comm_spawn_multiple): each
     * command with its ranks. */
    const msc_json_t *cmds = msc_json_get(run, "commands");
    size_t nc = cmds && cmds->type == MSC_JARR ? cmds->n : 0, k = 0;
    if (nc > 1) {
        fprintf(o, "  commands  %zu:", nc);
        for (const msc_json_t *c = cmds->child; c && k < 8; c = c->next, k++)
            fprintf(o, "%s %s (ranks %s)", k ? ";" : "", msc_json_str(c, "command", "?"),
                    msc_json_str(c, "ranks", "?"));
        if (nc > 8) fprintf(o, "; ... %zu more", nc - 8);
        fputc('\n', o);
    } else {
        fprintf(o, "  command   %s\n", msc_json_str(run, "command", "?"));
    }
    fprintf(o, "  started   %s, ran %.3f s (longest rank)\n", msc_json_str(run, "start_time", "?"),
            sec(msc_json_int(run, "duration_ns")));
    const msc_json_t *hosts = msc_json_get(run, "hosts");
    size_t nh = hosts && hosts->type == MSC_JARR ? hosts->n : 0, i = 0;
    fprintf(o, "  hosts     %zu:", nh);
    for (const msc_json_t *h = nh ? hosts->child : NULL; h && i < 8; h = h->next, i++)
        fprintf(o, "%s %s (ranks %s)", i ? "," : "", msc_json_str(h, "name", "?"),
                msc_json_str(h, "ranks", "?"));
    if (nh > 8) fprintf(o, ", ... %zu more", nh - 8);
    fputc('\n', o);
    if (msc_json_get(run, "slurm")) {
        fprintf(o, "  slurm     ");
        msc_render_slurm(o, run);
        fputc('\n', o);
    }
    fprintf(o, "  MPI       %s (MPI %s); mpiscope %s\n", msc_json_str(run, "mpi_library", "?"),
            msc_json_str(run, "mpi_version", "?"), msc_json_str(run, "mpiscope_version", "?"));
    const msc_json_t *set = msc_json_get(run, "settings");
    fprintf(o, "  settings ");
    if (!set || !set->n) fprintf(o, " all defaults");
    for (const msc_json_t *s = set ? set->child : NULL; s; s = s->next)
        fprintf(o, " %s=%s", s->key ? s->key : "?", s->str ? s->str : "?");
    fputc('\n', o);
}

static int64_t app_ns(const msc_json_t *r)
{
    int64_t a = msc_json_int(r, "profiled_ns") - msc_json_int(r, "mpi_ns");
    return a > 0 ? a : 0;
}

static double mpi_pct(const msc_json_t *r)
{
    int64_t p = msc_json_int(r, "profiled_ns");
    return p ? 100.0 * (double)msc_json_int(r, "mpi_ns") / (double)p : 0.0;
}

static void rank_row(FILE *o, const char *label, const msc_json_t *r)
{
    char host[32];
    snprintf(host, sizeof host, "%s", msc_json_str(r, "host", "-"));
    fprintf(o, "  %-8s %6lld %-20s %12.6f %12.6f %7.2f %12.6f %10lld\n", label,
            (long long)msc_json_int(r, "rank"), host, sec(app_ns(r)), sec(msc_json_int(r, "mpi_ns")),
            mpi_pct(r), sec(msc_json_int(r, "io_ns")), (long long)msc_json_int(r, "calls"));
}

static int by_mpi_ns(const void *a, const void *b)
{
    const msc_json_t *x = *(const msc_json_t *const *)a, *y = *(const msc_json_t *const *)b;
    int64_t u = msc_json_int(x, "mpi_ns"), v = msc_json_int(y, "mpi_ns");
    if (u != v) return u < v ? -1 : 1;
    return msc_json_int(x, "rank") < msc_json_int(y, "rank") ? -1 : 1;
}

/* Every rank's times, as mpiP's table; past `fold` ranks only the ranks of
 * least, median and most MPI time. */
static void render_ranks(FILE *o, const msc_json_t *root, size_t fold)
{
    const msc_json_t *pr = msc_json_get(root, "per_rank");
    size_t n = pr && pr->type == MSC_JARR ? pr->n : 0;
    if (!n) return;
    fprintf(o, "\nPer rank (%zu%s; application time = profiled time - MPI time)\n", n,
            n > fold ? ", folded: the ranks of least, median and most MPI time" : "");
    fprintf(o, "  %-8s %6s %-20s %12s %12s %7s %12s %10s\n", "", "rank", "host", "app(s)",
            "MPI(s)", "MPI%", "MPI-IO(s)", "calls");
    if (n <= fold) {
        for (const msc_json_t *r = pr->child; r; r = r->next) rank_row(o, "", r);
        return;
    }
    const msc_json_t **v = malloc(n * sizeof *v);
    if (!v) return;
    size_t k = 0;
    for (const msc_json_t *r = pr->child; r; r = r->next) v[k++] = r;
    qsort(v, k, sizeof *v, by_mpi_ns);
    rank_row(o, "min", v[0]);
    rank_row(o, "median", v[(k - 1) / 2]);
    rank_row(o, "max", v[k - 1]);
    free(v);
}

static void sizes_row(FILE *o, const char *label, const msc_json_t *h)
{
    if (!h || h->type != MSC_JARR || !h->n) return;
    fprintf(o, "      %-6s", label);
    for (const msc_json_t *b = h->child; b; b = b->next) {
        int64_t lo = msc_json_int(b, "lo"), hi = msc_json_int(b, "hi");
        if (lo == hi) fprintf(o, " [%lld]:%lld", (long long)lo, (long long)msc_json_int(b, "count"));
        else fprintf(o, " [%lld-%lld]:%lld", (long long)lo, (long long)hi, (long long)msc_json_int(b, "count"));
    }
    fputc('\n', o);
}

static void file_row(FILE *o, const char *name, const msc_json_t *f)
{
    char rd[32], wr[32], ops_r[32], ops_w[32];
    human_bytes(rd, sizeof rd, msc_json_num(f, "bytes_read"));
    human_bytes(wr, sizeof wr, msc_json_num(f, "bytes_written"));
    snprintf(ops_r, sizeof ops_r, "%lld/%lld", (long long)msc_json_int(f, "reads_independent"),
             (long long)msc_json_int(f, "reads_collective"));
    snprintf(ops_w, sizeof ops_w, "%lld/%lld", (long long)msc_json_int(f, "writes_independent"),
             (long long)msc_json_int(f, "writes_collective"));
    char label[48];
    size_t len = strlen(name);
    snprintf(label, sizeof label, "%s%s", len > 40 ? "..." : "", len > 40 ? name + len - 37 : name);
    fprintf(o, "  %-40s %5lld %6lld %13s %13s %10s %10s %10.6f %9.1f %9.1f %6.1f\n", label,
            (long long)msc_json_int(f, "ranks"), (long long)msc_json_int(f, "opens"), ops_r, ops_w,
            rd, wr, sec(msc_json_int(f, "time_ns")), msc_json_num(f, "read_bandwidth_Bps") / 1e6,
            msc_json_num(f, "write_bandwidth_Bps") / 1e6, msc_json_num(f, "imbalance_pct"));
    sizes_row(o, "read", msc_json_get(f, "read_sizes"));
    sizes_row(o, "write", msc_json_get(f, "write_sizes"));
}

/* The I/O section (MPI-IO), when the run opened a file. */
static void render_io(FILE *o, const msc_json_t *root, size_t limit)
{
    const msc_json_t *io = msc_json_get(root, "io");
    const msc_json_t *files = msc_json_get(io, "files"), *other = msc_json_get(io, "other_files");
    size_t n = files && files->type == MSC_JARR ? files->n : 0;
    if (!n && !other) return;
    char rd[32], wr[32];
    human_bytes(rd, sizeof rd, msc_json_num(io, "bytes_read"));
    human_bytes(wr, sizeof wr, msc_json_num(io, "bytes_written"));
    fprintf(o, "\nI/O (MPI-IO): %zu file(s), %lld of %lld rank(s) did I/O\n", n,
            (long long)msc_json_int(io, "ranks_with_io"), (long long)msc_json_int(root, "ranks"));
    fprintf(o, "  read %s, written %s, I/O time all ranks %.6f s\n", rd, wr,
            sec(msc_json_int(io, "time_ns")));
    fprintf(o, "  I/O time per rank min/mean/max %.6f s @%lld / %.6f s / %.6f s @%lld, imbalance %.2f %%\n",
            sec(msc_json_int(io, "rank_time_min_ns")), (long long)msc_json_int(io, "rank_time_min_at"),
            msc_json_num(io, "rank_time_mean_ns") / 1e9, sec(msc_json_int(io, "rank_time_max_ns")),
            (long long)msc_json_int(io, "rank_time_max_at"), msc_json_num(io, "imbalance_pct"));
    fprintf(o, "  %-40s %5s %6s %13s %13s %10s %10s %10s %9s %9s %6s\n", "file", "ranks", "opens",
            "reads ind/col", "writes ind/col", "read", "written", "time(s)", "rd MB/s", "wr MB/s",
            "imbal%");
    size_t i = 0;
    for (const msc_json_t *f = n ? files->child : NULL; f && i < limit; f = f->next, i++)
        file_row(o, msc_json_str(f, "name", "?"), f);
    if (n > limit) fprintf(o, "  ... %zu more\n", n - limit);
    if (other) file_row(o, "(other files)", other);
    int64_t dropped = msc_json_int(io, "files_dropped"), merged = msc_json_int(io, "files_merged");
    if (dropped || merged)
        fprintf(o, "  other files: %lld open(s) beyond a rank's budget, %lld file record(s) beyond the "
                   "merged budget (MPISCOPE_PROFILE_FILES)\n", (long long)dropped, (long long)merged);
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
    const msc_json_t *inc = msc_json_get(root, "incomplete");
    if (inc)
        fprintf(o, " (INCOMPLETE: rank %lld went down: %s)", (long long)msc_json_int(inc, "rank"),
                msc_json_str(inc, "reason", "?"));
    fputc('\n', o);
    render_run(o, root);
    fprintf(o, "\nSummary\n");
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
    msc_pop_render(o, root, opts->limit); /* pop.c */
    render_ranks(o, root, limit);

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
    render_io(o, root, limit);
    const msc_json_t *pv = msc_json_get(msc_json_get(root, "pvars"), "variables");
    if (pv && pv->type == MSC_JARR && pv->n) {
        fprintf(o, "\nMPI_T performance variables (MPISCOPE_PVARS; summed over peers, bound to "
                   "MPI_COMM_WORLD where bound)\n");
        fprintf(o, "  %-34s %-13s %5s %8s %12s %12s %12s %12s\n", "variable", "class", "rank",
                "samples", "start", "end", "min", "max");
        for (const msc_json_t *v = pv->child; v; v = v->next) {
            const msc_json_t *pr = msc_json_get(v, "per_rank");
            for (const msc_json_t *r = pr ? pr->child : NULL; r; r = r->next)
                fprintf(o, "  %-34s %-13s %5lld %8lld %12.6g %12.6g %12.6g %12.6g\n",
                        msc_json_str(v, "name", "?"), msc_json_str(v, "class", "?"),
                        (long long)msc_json_int(r, "rank"), (long long)msc_json_int(r, "samples"),
                        msc_json_num(r, "start"), msc_json_num(r, "end"), msc_json_num(r, "min"),
                        msc_json_num(r, "max"));
        }
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

/* ---- a run cut short: the ranks' partial files, merged ------------------------ */

/* When a job died, no rank wrote profile.json. What is there: each rank that
 * went down through the tool's emergency path wrote
 * profile.rank<R>.incomplete.json (and the core a rank-<R>.incomplete note
 * saying why); a rank may also have MPI_Pcontrol(2) flushes. The report
 * merges, per rank, the incomplete file or else its latest flush, and names
 * every rank of which it has nothing. */

typedef struct {
    char *key;
    const msc_json_t *proto;   /* the first record: name or function and frames */
    int64_t calls, time, tmin, tmax, sent, recv, ranks, rmin, rmin_at, rmax, rmax_at;
    int64_t hist[64];
} part_rec_t;

typedef struct {
    part_rec_t *e;
    size_t n, cap;
} part_set_t;

static void json_out(FILE *o, const msc_json_t *v)
{
    if (!v) { /* a member missing from a damaged file */
        fputs("null", o);
        return;
    }
    switch (v->type) {
    case MSC_JNULL: fputs("null", o); break;
    case MSC_JBOOL: fputs(v->num ? "true" : "false", o); break;
    case MSC_JNUM:
        if (v->is_int) fprintf(o, "%lld", (long long)v->i);
        else fprintf(o, "%.17g", v->num);
        break;
    case MSC_JSTR:
        msc_json_put_string(o, v->str);
        break;
    case MSC_JARR:
    case MSC_JOBJ:
        fputc(v->type == MSC_JARR ? '[' : '{', o);
        for (const msc_json_t *c = v->child; c; c = c->next) {
            if (c != v->child) fputs(", ", o);
            if (v->type == MSC_JOBJ) {
                msc_json_t k = {.type = MSC_JSTR, .str = c->key ? c->key : ""};
                json_out(o, &k);
                fputs(": ", o);
            }
            json_out(o, c);
        }
        fputc(v->type == MSC_JARR ? ']' : '}', o);
        break;
    }
}

static char *rec_key(const msc_json_t *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *k = open_memstream(&buf, &len);
    if (!k) return NULL;
    fputs(row_name(r), k);
    const msc_json_t *fr = msc_json_get(r, "frames");
    if (fr) json_out(k, fr);
    fclose(k);
    return buf;
}

static void part_add(part_set_t *st, const msc_json_t *r)
{
    char *key = rec_key(r);
    if (!key) return;
    part_rec_t *e = NULL;
    for (size_t i = 0; i < st->n && !e; i++)
        if (strcmp(st->e[i].key, key) == 0) e = &st->e[i];
    if (e) {
        free(key);
    } else {
        if (st->n == st->cap) {
            size_t cap = st->cap ? 2 * st->cap : 64;
            part_rec_t *p = realloc(st->e, cap * sizeof *p);
            if (!p) {
                free(key);
                return;
            }
            st->e = p, st->cap = cap;
        }
        e = &st->e[st->n++];
        memset(e, 0, sizeof *e);
        e->key = key, e->proto = r, e->tmin = INT64_MAX, e->rmin = INT64_MAX, e->rmin_at = -1;
        e->rmax_at = -1;
    }
    int64_t calls = msc_json_int(r, "calls"), t = msc_json_int(r, "time_ns");
    e->calls += calls, e->time += t;
    e->sent += msc_json_int(r, "bytes_sent"), e->recv += msc_json_int(r, "bytes_recv");
    if (calls && msc_json_int(r, "time_min_ns") < e->tmin) e->tmin = msc_json_int(r, "time_min_ns");
    if (msc_json_int(r, "time_max_ns") > e->tmax) e->tmax = msc_json_int(r, "time_max_ns");
    e->ranks += msc_json_int(r, "ranks");
    if (msc_json_int(r, "rank_time_min_at") >= 0 && msc_json_int(r, "rank_time_min_ns") < e->rmin)
        e->rmin = msc_json_int(r, "rank_time_min_ns"), e->rmin_at = msc_json_int(r, "rank_time_min_at");
    if (msc_json_int(r, "rank_time_max_at") >= 0 && msc_json_int(r, "rank_time_max_ns") >= e->rmax)
        e->rmax = msc_json_int(r, "rank_time_max_ns"), e->rmax_at = msc_json_int(r, "rank_time_max_at");
    const msc_json_t *h = msc_json_get(r, "histogram");
    for (const msc_json_t *b = h && h->type == MSC_JARR ? h->child : NULL; b; b = b->next) {
        int64_t bin = msc_json_int(b, "bin");
        if (bin >= 0 && bin < 64) e->hist[bin] += msc_json_int(b, "count");
    }
}

static void part_write(FILE *o, const char *name, part_set_t *st, int64_t nranks, bool fns)
{
    fprintf(o, ",\n\"%s\": [", name);
    for (size_t i = 0; i < st->n; i++) {
        part_rec_t *e = &st->e[i];
        fputs(i ? ",\n {" : "\n {", o);
        if (fns) {
            fputs("\"name\": ", o);
            json_out(o, msc_json_get(e->proto, "name"));
        } else {
            fputs("\"function\": ", o);
            json_out(o, msc_json_get(e->proto, "function"));
            fputs(", \"frames\": ", o);
            json_out(o, msc_json_get(e->proto, "frames"));
        }
        fprintf(o, ", \"calls\": %lld, \"time_ns\": %lld, \"time_min_ns\": %lld, \"time_max_ns\": %lld, "
                   "\"bytes_sent\": %lld, \"bytes_recv\": %lld, \"ranks\": %lld, "
                   "\"rank_time_min_ns\": %lld, \"rank_time_min_at\": %lld, \"rank_time_max_ns\": %lld, "
                   "\"rank_time_max_at\": %lld, \"rank_time_mean_ns\": %lld",
                (long long)e->calls, (long long)e->time, (long long)(e->calls ? e->tmin : 0),
                (long long)e->tmax, (long long)e->sent, (long long)e->recv, (long long)e->ranks,
                (long long)(e->rmin_at >= 0 ? e->rmin : 0), (long long)e->rmin_at,
                (long long)e->rmax, (long long)e->rmax_at,
                (long long)(nranks ? e->time / nranks : 0));
        if (fns) {
            fputs(", \"histogram\": [", o);
            bool first = true;
            for (int b = 0; b < 64; b++) {
                if (!e->hist[b]) continue;
                long long lo = b ? 1ll << (b - 1) : 0, hi = b ? (1ll << b) - 1 : 0;
                fprintf(o, "%s{\"bin\": %d, \"lo\": %lld, \"hi\": %lld, \"count\": %lld}",
                        first ? "" : ", ", b, lo, hi, (long long)e->hist[b]);
                first = false;
            }
            fputc(']', o);
        }
        fputc('}', o);
        free(e->key);
    }
    fputc(']', o);
    free(st->e);
}

/* The file of `rank` to merge: its incomplete file, else its latest flush. */
static char *rank_file(const char *dir, int rank, int64_t *flush)
{
    char path[4096 + 64];
    snprintf(path, sizeof path, "%s/profile.rank%d.incomplete.json", dir, rank);
    *flush = -1;
    if (access(path, R_OK) == 0) return strdup(path);
    char *best = NULL;
    DIR *d = opendir(dir);
    struct dirent *de;
    char prefix[64];
    snprintf(prefix, sizeof prefix, "profile.rank%d.flush", rank);
    while (d && (de = readdir(d))) {
        size_t pl = strlen(prefix), nl = strlen(de->d_name);
        if (strncmp(de->d_name, prefix, pl) || nl < pl + 6 || strcmp(de->d_name + nl - 5, ".json"))
            continue;
        char *end = NULL;
        long k = strtol(de->d_name + pl, &end, 10);
        if (end != de->d_name + nl - 5 || k <= *flush) continue;
        *flush = k;
        free(best);
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        best = strdup(path);
    }
    if (d) closedir(d);
    return best;
}

int msc_profile_render_partial(FILE *o, FILE *err, const char *dir, const msc_render_opts_t *opts)
{
    /* The world size: from any partial file, else from the notes. */
    int world = 0;
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        int r = -1;
        char tail[32] = "";
        if ((sscanf(de->d_name, "profile.rank%d.%31s", &r, tail) == 2 ||
             sscanf(de->d_name, "rank-%d.%31s", &r, tail) == 2) && r + 1 > world)
            world = r + 1;
    }
    if (d) closedir(d);
    if (world == 0) {
        fprintf(err, "mpiscope report: %s has no profile.json and no partial profile "
                     "(profile.rank<R>.incomplete.json, profile.rank<R>.flush<K>.json)\n", dir);
        return -2;
    }
    msc_json_doc_t **docs = calloc((size_t)world, sizeof *docs);
    int64_t *flush = calloc((size_t)world, sizeof *flush);
    if (!docs || !flush) {
        free(docs);
        free(flush);
        return -1;
    }
    int found = 0;
    for (int r = 0; r < world; r++) {
        char *path = rank_file(dir, r, &flush[r]);
        size_t len = 0;
        char *text = path ? msc_read_file(path, &len) : NULL;
        char msg[256];
        if (text) docs[r] = msc_json_parse(text, len, msg, sizeof msg);
        if (text && !docs[r]) fprintf(err, "mpiscope report: %s is not valid JSON: %s\n", path, msg);
        free(text);
        free(path);
        if (docs[r]) found++;
    }
    const msc_json_t *any = NULL;
    for (int r = 0; r < world && !any; r++)
        if (docs[r]) any = msc_json_root(docs[r]);
    /* A world size beyond any real job is a damaged file: believed, it would
     * make the report list (and look for files of) billions of ranks. */
    enum { MAX_WORLD = 1 << 20 };
    if (any && msc_json_int(any, "world_size") > MAX_WORLD)
        fprintf(err, "mpiscope report: world_size %lld in the partial files is not believable; "
                     "only ranks up to %d are listed\n",
                (long long)msc_json_int(any, "world_size"), world - 1);
    else if (any && msc_json_int(any, "world_size") > world) {
        /* Ranks above the highest file seen are missing too. */
        int w = (int)msc_json_int(any, "world_size");
        msc_json_doc_t **nd = realloc(docs, (size_t)w * sizeof *nd);
        int64_t *nf = realloc(flush, (size_t)w * sizeof *nf);
        if (nd) docs = nd;
        if (nf) flush = nf;
        if (nd && nf) {
            for (int r = world; r < w; r++) docs[r] = NULL, flush[r] = -1;
            world = w;
        }
    }

    char *json = NULL;
    size_t jlen = 0;
    FILE *m = open_memstream(&json, &jlen);
    part_set_t fns = {0}, sites = {0};
    int64_t wall_max = 0, wall = 0, prof = 0, mpi = 0, calls = 0, mmin = INT64_MAX, mmax = -1;
    int64_t mmin_at = 0, mmax_at = 0, tot[2][2] = {{0}}, om[3] = {0}, dr[3] = {0}, depth = 0;
    bool recorded = true;
    fprintf(m, "{\"schema_version\": %d, \"tool\": \"mpiscope\", \"mpi\": ", MSC_PROFILE_SCHEMA);
    /* Missing or not strings in a damaged file: "?". */
    json_out(m, &(msc_json_t){.type = MSC_JSTR, .str = msc_json_str(any, "mpi", "?")});
    fprintf(m, ", \"program\": ");
    json_out(m, &(msc_json_t){.type = MSC_JSTR, .str = msc_json_str(any, "program", "?")});
    fprintf(m, ", \"scope\": \"partial-merge\", \"ranks\": %d, \"world_size\": %d", found, world);
    fprintf(m, ",\n\"per_rank\": [");
    bool first = true;
    for (int r = 0; r < world; r++) {
        if (!docs[r]) continue;
        const msc_json_t *root = msc_json_root(docs[r]);
        depth = msc_json_int(root, "callsite_depth");
        const msc_json_t *pr = msc_json_get(root, "per_rank");
        for (const msc_json_t *p = pr && pr->type == MSC_JARR ? pr->child : NULL; p; p = p->next) {
            if (!first) fputc(',', m);
            json_out(m, p);
            first = false;
            int64_t w = msc_json_int(p, "wall_ns"), t = msc_json_int(p, "mpi_ns");
            wall += w, prof += msc_json_int(p, "profiled_ns"), mpi += t;
            calls += msc_json_int(p, "calls");
            if (w > wall_max) wall_max = w;
            if (t < mmin) mmin = t, mmin_at = msc_json_int(p, "rank");
            if (t > mmax) mmax = t, mmax_at = msc_json_int(p, "rank");
        }
        const msc_json_t *a = msc_json_get(root, "functions");
        for (const msc_json_t *f = a && a->type == MSC_JARR ? a->child : NULL; f; f = f->next)
            part_add(&fns, f);
        a = msc_json_get(root, "callsites");
        for (const msc_json_t *f = a && a->type == MSC_JARR ? a->child : NULL; f; f = f->next)
            part_add(&sites, f);
        const msc_json_t *mx = msc_json_get(root, "matrix");
        recorded &= msc_json_num(mx, "recorded") != 0;
        const char *cls[] = {"p2p", "collective"};
        for (int c = 0; c < 2; c++) {
            tot[c][0] += msc_json_int(msc_json_get(mx, cls[c]), "messages");
            tot[c][1] += msc_json_int(msc_json_get(mx, cls[c]), "bytes");
        }
        const char *omk[] = {"pairs", "messages", "bytes"};
        const char *drk[] = {"callsite_calls", "callsites_merged", "requests"};
        for (int i = 0; i < 3; i++) {
            om[i] += msc_json_int(msc_json_get(mx, "omitted"), omk[i]);
            dr[i] += msc_json_int(msc_json_get(root, "dropped"), drk[i]);
        }
    }
    double mean = found ? (double)mpi / found : 0;
    fprintf(m, "],\n\"callsite_depth\": %lld,\n\"summary\": {\"wall_ns_max\": %lld, \"wall_ns_total\": %lld, "
               "\"profiled_ns_total\": %lld, \"mpi_ns_total\": %lld, \"mpi_pct\": %.3f, "
               "\"mpi_ns_rank_min\": %lld, \"mpi_ns_rank_min_at\": %lld, \"mpi_ns_rank_max\": %lld, "
               "\"mpi_ns_rank_max_at\": %lld, \"mpi_ns_rank_mean\": %.0f, \"imbalance_pct\": %.3f, "
               "\"calls\": %lld}",
            (long long)depth, (long long)wall_max, (long long)wall, (long long)prof, (long long)mpi,
            prof ? 100.0 * (double)mpi / (double)prof : 0.0, (long long)(found ? mmin : 0),
            (long long)mmin_at, (long long)(mmax < 0 ? 0 : mmax), (long long)mmax_at, mean,
            mmax > 0 ? 100.0 * ((double)mmax - mean) / (double)mmax : 0.0, (long long)calls);
    part_write(m, "functions", &fns, found, true);
    part_write(m, "callsites", &sites, found, false);
    fprintf(m, ",\n\"matrix\": {\"recorded\": %s, \"ranks_limit\": %lld, \"pairs_limit\": %lld, "
               "\"p2p\": {\"messages\": %lld, \"bytes\": %lld}, \"collective\": {\"messages\": %lld, "
               "\"bytes\": %lld}, \"omitted\": {\"pairs\": %lld, \"messages\": %lld, \"bytes\": %lld}, "
               "\"pairs\": [",
            recorded ? "true" : "false",
            (long long)(any ? msc_json_int(msc_json_get(any, "matrix"), "ranks_limit") : 0),
            (long long)(any ? msc_json_int(msc_json_get(any, "matrix"), "pairs_limit") : 0),
            (long long)tot[0][0], (long long)tot[0][1], (long long)tot[1][0], (long long)tot[1][1],
            (long long)om[0], (long long)om[1], (long long)om[2]);
    first = true;
    for (int r = 0; r < world; r++) {
        const msc_json_t *pr = docs[r] ? msc_json_get(msc_json_get(msc_json_root(docs[r]), "matrix"), "pairs") : NULL;
        for (const msc_json_t *p = pr && pr->type == MSC_JARR ? pr->child : NULL; p; p = p->next) {
            if (!first) fputc(',', m);
            json_out(m, p);
            first = false;
        }
    }
    fprintf(m, "]},\n\"dropped\": {\"callsite_calls\": %lld, \"callsites_merged\": %lld, \"requests\": %lld}}\n",
            (long long)dr[0], (long long)dr[1], (long long)dr[2]);
    fclose(m);

    fprintf(o, "INCOMPLETE RUN: %s has no profile.json (the job did not reach MPI_Finalize); "
               "merged from %d of %d rank(s)\n\n", dir, found, world);
    char msg[256];
    msc_json_doc_t *merged = json ? msc_json_parse(json, jlen, msg, sizeof msg) : NULL;
    int rc = merged ? msc_profile_render(o, msc_json_root(merged), opts) : -1;
    if (!merged) fprintf(err, "mpiscope report: internal error merging the partial files: %s\n", msg);
    msc_json_free(merged);
    free(json);

    fprintf(o, "\nRanks of the run (%d)\n", world);
    int missing = 0;
    for (int r = 0; r < world; r++) {
        char note[256] = "", path[4096 + 64];
        snprintf(path, sizeof path, "%s/rank-%d.incomplete", dir, r);
        FILE *f = fopen(path, "r");
        if (f) {
            if (!fgets(note, sizeof note, f)) note[0] = 0;
            note[strcspn(note, "\n")] = 0;
            fclose(f);
        }
        const char *what = note[0] ? note : "no note: killed without warning (SIGKILL) or hung";
        if (docs[r] && flush[r] < 0)
            fprintf(o, "  rank %d: partial profile, went down: %s\n", r, what);
        else if (docs[r])
            fprintf(o, "  rank %d: MISSING its end: only its MPI_Pcontrol(2) flush %lld; %s\n", r,
                    (long long)flush[r], note[0] ? note : "went down without a note");
        else
            fprintf(o, "  rank %d: MISSING: no profile data; %s\n", r, what), missing++;
    }
    if (missing) fprintf(o, "  %d rank(s) missing\n", missing);
    for (int r = 0; r < world; r++) msc_json_free(docs[r]);
    free(docs);
    free(flush);
    return rc;
}
