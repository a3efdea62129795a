/* `mpiscope diff A B`: what changed between two profiles (run directories
 * or profile.json files): the summary, then the functions and the call
 * sites whose time changed most, in absolute nanoseconds (B - A), largest
 * change first. Call sites are matched by function and innermost frame
 * (file:line, or module+offset without line information), so two builds of
 * the same source compare line by line.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "report_cli.h"

typedef struct {
    char key[1200];
    int64_t a, b;       /* time, ns */
    int64_t ca, cb;     /* calls */
} drow_t;

typedef struct {
    drow_t *v;
    size_t n, cap;
} drows_t;

static drow_t *find(drows_t *t, const char *key)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->v[i].key, key)) return &t->v[i];
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->v = realloc(t->v, t->cap * sizeof *t->v);
        if (!t->v) abort();
    }
    drow_t *r = &t->v[t->n++];
    memset(r, 0, sizeof *r);
    snprintf(r->key, sizeof r->key, "%s", key);
    return r;
}

static void site_key(const msc_json_t *s, char *k, size_t n)
{
    const msc_json_t *fr = msc_json_get(s, "frames");
    const msc_json_t *f0 = fr && fr->n ? fr->child : NULL;
    const char *file = msc_json_str(f0, "file", "");
    if (*file)
        snprintf(k, n, "%s at %s:%lld", msc_json_str(s, "function", "?"), file,
                 (long long)msc_json_int(f0, "line"));
    else
        snprintf(k, n, "%s at %s+%s", msc_json_str(s, "function", "?"),
                 msc_json_str(f0, "module", "?"), msc_json_str(f0, "offset", "?"));
}

/* Sums of numbers read from a file: a damaged one must not overflow them. */
static void add(int64_t *sum, int64_t v)
{
    if (__builtin_add_overflow(*sum, v, sum)) *sum = v < 0 ? INT64_MIN : INT64_MAX;
}

static void collect(drows_t *fn, drows_t *cs, const msc_json_t *p, bool second)
{
    const msc_json_t *f = msc_json_get(p, "functions");
    for (const msc_json_t *x = f ? f->child : NULL; x; x = x->next) {
        drow_t *r = find(fn, msc_json_str(x, "name", "?"));
        add(second ? &r->b : &r->a, msc_json_int(x, "time_ns"));
        add(second ? &r->cb : &r->ca, msc_json_int(x, "calls"));
    }
    const msc_json_t *s = msc_json_get(p, "callsites");
    for (const msc_json_t *x = s ? s->child : NULL; x; x = x->next) {
        char k[1200];
        site_key(x, k, sizeof k);
        drow_t *r = find(cs, k);
        add(second ? &r->b : &r->a, msc_json_int(x, "time_ns"));
        add(second ? &r->cb : &r->ca, msc_json_int(x, "calls"));
    }
}

static int by_change(const void *x, const void *y)
{
    const drow_t *a = x, *b = y;
    double da = fabs((double)a->b - (double)a->a), db = fabs((double)b->b - (double)b->a);
    if (da != db) return da > db ? -1 : 1;
    return strcmp(a->key, b->key);
}

static void table(const char *title, drows_t *t, int limit)
{
    if (t->n) qsort(t->v, t->n, sizeof *t->v, by_change);
    printf("\n%s (largest change first)\n%12s %12s %12s %8s %9s %9s  %s\n", title, "A (s)", "B (s)",
           "B-A (s)", "change", "calls A", "calls B", "name");
    for (size_t i = 0; i < t->n && (!limit || (int)i < limit); i++) {
        drow_t *r = &t->v[i];
        char pct[32];
        if (r->a)
            snprintf(pct, sizeof pct, "%+.1f%%", 100.0 * ((double)r->b - (double)r->a) / (double)r->a);
        else
            snprintf(pct, sizeof pct, "%s", r->b ? "new" : "0");
        if (!r->b && r->a) snprintf(pct, sizeof pct, "gone");
        printf("%12.6f %12.6f %+12.6f %8s %9lld %9lld  %s\n", (double)r->a / 1e9, (double)r->b / 1e9,
               ((double)r->b - (double)r->a) / 1e9, pct, (long long)r->ca, (long long)r->cb, r->key);
    }
}

static msc_json_doc_t *load(const char *target)
{
    struct stat sb;
    char path[4096];
    if (stat(target, &sb) == 0 && S_ISDIR(sb.st_mode))
        snprintf(path, sizeof path, "%s/profile.json", target);
    else
        snprintf(path, sizeof path, "%s", target);
    msc_json_doc_t *d = msc_load_json(path, false);
    if (d && strcmp(msc_json_str(msc_json_root(d), "tool", ""), "mpiscope") != 0) {
        fprintf(stderr, "mpiscope diff: %s is not an mpiscope profile\n", path);
        msc_json_free(d);
        return NULL;
    }
    return d;
}

static void usage(FILE *o)
{
    fprintf(o, "usage: mpiscope diff [--limit N | --all] A B\n"
               "\n"
               "Compares two profiles (run directories or profile.json files): total and MPI\n"
               "time, then the functions and call sites whose time changed most (B - A).\n");
}

int msc_cmd_diff(int argc, char **argv)
{
    const char *t[2] = {NULL, NULL};
    int nt = 0, limit = 20;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--limit") && i + 1 < argc) {
            limit = atoi(argv[++i]);
            if (limit < 1) {
                fprintf(stderr, "mpiscope diff: --limit takes a number of rows from 1\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--all")) {
            limit = 0;
        } else if (argv[i][0] == '-' || nt == 2) {
            usage(stderr);
            return 2;
        } else {
            t[nt++] = argv[i];
        }
    }
    if (nt != 2) {
        usage(stderr);
        return 2;
    }
    msc_json_doc_t *a = load(t[0]), *b = a ? load(t[1]) : NULL;
    if (!a || !b) {
        msc_json_free(a);
        return 1;
    }
    const msc_json_t *pa = msc_json_root(a), *pb = msc_json_root(b);
    const msc_json_t *sa = msc_json_get(pa, "summary"), *sb = msc_json_get(pb, "summary");
    printf("mpiscope diff\n  A: %s (%s, %lld ranks)\n  B: %s (%s, %lld ranks)\n\n", t[0],
           msc_json_str(pa, "program", "?"), (long long)msc_json_int(pa, "world_size"), t[1],
           msc_json_str(pb, "program", "?"), (long long)msc_json_int(pb, "world_size"));
    static const char *const keys[] = {"wall_ns_max", "mpi_ns_total", "mpi_ns_rank_max"};
    static const char *const names[] = {"wall time (longest rank)", "MPI time (all ranks)",
                                        "MPI time (busiest rank)"};
    printf("%-26s %12s %12s %12s\n", "", "A (s)", "B (s)", "B-A (s)");
    for (int i = 0; i < 3; i++) {
        int64_t x = msc_json_int(sa, keys[i]), y = msc_json_int(sb, keys[i]);
        printf("%-26s %12.6f %12.6f %+12.6f\n", names[i], (double)x / 1e9, (double)y / 1e9,
               (double)(y - x) / 1e9);
    }
    printf("%-26s %11.1f%% %11.1f%% %+11.1f%%\n", "MPI share", msc_json_num(sa, "mpi_pct"),
           msc_json_num(sb, "mpi_pct"), msc_json_num(sb, "mpi_pct") - msc_json_num(sa, "mpi_pct"));
    drows_t fn = {0}, cs = {0};
    collect(&fn, &cs, pa, false);
    collect(&fn, &cs, pb, true);
    table("Functions", &fn, limit);
    table("Call sites", &cs, limit);
    free(fn.v);
    free(cs.v);
    msc_json_free(a);
    msc_json_free(b);
    return 0;
}
