/* `mpiscope export --folded DIR [-o FILE]`: the profile's call paths as
 * folded stacks, the input of flamegraph.pl, speedscope and Hatchet's
 * flame-graph writer: one line per call path,
 *
 *     main;solve;exchange;MPI_Sendrecv 1234
 *
 * outermost frame first, the MPI function last, and the MPI time of the
 * calls made on that path in microseconds (summed over ranks, rounded to the
 * nearest microsecond; a path below half a microsecond is left out).
 *
 * The paths come from profile.json's call sites, recorded with
 * MPISCOPE_CALLSITE_DEPTH frames. A frame is named by its symbol (else
 * module+offset, else file:line, else ??; a ';' in a name becomes ':');
 * frames outside main (the C library's start-up) are dropped. A stack that
 * reaches main, or has fewer frames than the depth (the unwinder reached the
 * bottom), is whole; any other was cut at the depth and starts with the
 * frame "[cut at depth N]", so that the cut stacks share one root instead of
 * passing for whole ones. Sites that differ only in their lines fold into one
 * path. The Python package (python/mpiscope/stacks.py) follows the same
 * rules, and tests/python compares the two.
 *
 * --per-rank splits the weights by rank ("rank 3;main;solve;MPI_Allreduce
 * 12"). profile.json merges the sites over the ranks, so the rank's share
 * comes from the trace (mpiscope run --trace): every MPI call's duration,
 * credited through its Enter's source code location (function, file, line:
 * the innermost frame) to the profile's path with that innermost frame.
 * When several paths end in that frame (one line reached from several
 * callers) the trace cannot tell which; such calls go to
 * "[several callers];<frame>;<function>". A call whose location is not among
 * the profile's sites goes to "[site not in profile];<file>:<line>;<function>",
 * one without a location to "[no call site];<function>".
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "report_cli.h"
#include "trace_check.h"
#include "trace_reader.h"

/* Appends `s` to the growing string *b (length *n, capacity *cap), ';'
 * replaced by ':' unless `sep` (the separator itself). False when out of
 * memory. */
static bool append(char **b, size_t *n, size_t *cap, const char *s, bool sep)
{
    size_t l = strlen(s);
    if (*n + l + 2 > *cap) {
        size_t c = (*cap ? *cap * 2 : 256) + l;
        char *nb = realloc(*b, c);
        if (!nb) return false;
        *b = nb, *cap = c;
    }
    for (size_t i = 0; i < l; i++) (*b)[(*n)++] = s[i] == ';' && !sep ? ':' : s[i];
    (*b)[*n] = '\0';
    return true;
}

static void frame_name(const msc_json_t *f, char *buf, size_t len)
{
    const char *sym = msc_json_str(f, "symbol", "");
    const char *off = msc_json_str(f, "offset", "");
    const char *file = msc_json_str(f, "file", "");
    if (*sym) snprintf(buf, len, "%s", sym);
    else if (*off) snprintf(buf, len, "%s+%s", msc_json_str(f, "module", ""), off);
    else if (*file) snprintf(buf, len, "%s:%" PRId64, file, msc_json_int(f, "line"));
    else snprintf(buf, len, "??");
}

/* The folded path of one call site, malloc'd; NULL when out of memory. */
static char *site_path(const msc_json_t *site, int64_t depth)
{
    const msc_json_t *fr = msc_json_get(site, "frames");
    size_t nf = fr && fr->type == MSC_JARR ? fr->n : 0;
    const msc_json_t **frames = calloc(nf ? nf : 1, sizeof *frames);
    if (!frames) return NULL;
    size_t k = 0;
    for (const msc_json_t *f = nf ? fr->child : NULL; f && k < nf; f = f->next) frames[k++] = f;
    /* frames[0] is the innermost; start from the outermost main, if any. */
    size_t top = nf;
    bool whole = (int64_t)nf < depth;
    for (size_t i = nf; i-- > 0;)
        if (!strcmp(msc_json_str(frames[i], "symbol", ""), "main")) {
            top = i + 1, whole = true;
            break;
        }
    char *b = NULL, name[1200];
    size_t n = 0, cap = 0;
    bool ok = true;
    if (!whole) {
        snprintf(name, sizeof name, "[cut at depth %" PRId64 "]", depth);
        ok = append(&b, &n, &cap, name, false) && append(&b, &n, &cap, ";", true);
    }
    for (size_t i = top; ok && i-- > 0;) {
        frame_name(frames[i], name, sizeof name);
        ok = append(&b, &n, &cap, name, false) && append(&b, &n, &cap, ";", true);
    }
    ok = ok && append(&b, &n, &cap, msc_json_str(site, "function", "?"), false);
    free(frames);
    if (!ok) {
        free(b);
        return NULL;
    }
    return b;
}

static int by_path(const void *a, const void *b)
{
    return strcmp(((const msc_folded_t *)a)->path, ((const msc_folded_t *)b)->path);
}

void msc_folded_free(msc_folded_t *f, size_t n)
{
    for (size_t i = 0; f && i < n; i++) free(f[i].path);
    free(f);
}

int msc_folded_stacks(const msc_json_t *profile, msc_folded_t **out, size_t *nout)
{
    *out = NULL, *nout = 0;
    int64_t depth = msc_json_int(profile, "callsite_depth");
    const msc_json_t *sites = msc_json_get(profile, "callsites");
    size_t ns = sites && sites->type == MSC_JARR ? sites->n : 0;
    if (depth < 1 || ns == 0) return 0;
    msc_folded_t *st = calloc(ns, sizeof *st);
    if (!st) return -1;
    size_t n = 0;
    for (const msc_json_t *s = sites->child; s && n < ns; s = s->next) {
        st[n].path = site_path(s, depth);
        if (!st[n].path) {
            msc_folded_free(st, n);
            return -1;
        }
        st[n++].us = msc_json_int(s, "time_ns"); /* ns until merged below */
    }
    qsort(st, n, sizeof *st, by_path);
    /* Sites that differ only in their lines fold into one path; the sum
     * is rounded once, and a path below half a microsecond is left out. */
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        int64_t sum = 0;
        size_t j = i;
        for (; j < n && !strcmp(st[j].path, st[i].path); j++) sum += st[j].us;
        int64_t us = (sum + 500) / 1000;
        for (size_t m = i + 1; m < j; m++) free(st[m].path);
        if (us > 0) st[k].path = st[i].path, st[k++].us = us;
        else free(st[i].path);
        i = j;
    }
    *out = st, *nout = k;
    return 0;
}

/* --per-rank: the profile's paths by innermost frame, and the trace's calls
 * summed per (rank, path). */
typedef struct {
    char *key;        /* "function\tfile\tline" of the innermost frame */
    char *path;       /* the site's path */
} byframe_t;

typedef struct {
    int rank;
    char *path;       /* owned */
    uint64_t ticks;
} rankpath_t;

typedef struct {
    int rank;
    uint32_t region, scl;
    size_t entry;     /* index into rankpath_t array */
    bool used;
} memo_t;

typedef struct {
    msc_trace_t *t;
    byframe_t *bf;
    size_t nbf;
    rankpath_t *rp;
    size_t nrp, caprp;
    memo_t *memo;
    size_t capmemo, nmemo;
    int rank;
    uint32_t region, scl; /* the MPI call open on the current location */
    uint64_t enter;
    bool open, oom;
} prctx_t;

static int by_key(const void *a, const void *b)
{
    return strcmp(((const byframe_t *)a)->key, ((const byframe_t *)b)->key);
}

static int by_rank_path(const void *a, const void *b)
{
    const rankpath_t *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return strcmp(x->path, y->path);
}

/* The path the trace's call (rank, region, scl) is credited to, malloc'd. */
static char *trace_path(prctx_t *c, uint32_t region, uint32_t scl)
{
    const char *fn = msc_trace_region_name(c->t, region);
    char *p = NULL;
    if (scl == UINT32_MAX || scl >= c->t->nscl) {
        if (asprintf(&p, "[no call site];%s", fn) < 0) return NULL;
        return p;
    }
    const char *file = msc_trace_string(c->t, c->t->scl_file[scl]);
    unsigned line = c->t->scl_line[scl];
    char *key;
    if (asprintf(&key, "%s\t%s\t%u", fn, file, line) < 0) return NULL;
    byframe_t probe = {.key = key};
    byframe_t *hit = bsearch(&probe, c->bf, c->nbf, sizeof *c->bf, by_key);
    if (!hit) {
        int rc = asprintf(&p, "[site not in profile];%s:%u;%s", file, line, fn);
        free(key);
        return rc < 0 ? NULL : p;
    }
    /* bsearch finds one of the equal keys: look at all of them. */
    size_t lo = (size_t)(hit - c->bf), hi = lo;
    while (lo > 0 && !strcmp(c->bf[lo - 1].key, key)) lo--;
    while (hi + 1 < c->nbf && !strcmp(c->bf[hi + 1].key, key)) hi++;
    bool same = true;
    for (size_t i = lo + 1; i <= hi; i++) same = same && !strcmp(c->bf[i].path, c->bf[lo].path);
    free(key);
    if (same) return strdup(c->bf[lo].path);
    /* The innermost frame's name: the path's second last element. */
    const char *path = c->bf[lo].path, *end = strrchr(path, ';'), *start = end;
    while (start > path && start[-1] != ';') start--;
    if (asprintf(&p, "[several callers];%.*s;%s", (int)(end - start), start, fn) < 0) return NULL;
    return p;
}

static size_t memo_slot(const prctx_t *c, int rank, uint32_t region, uint32_t scl)
{
    uint64_t h = ((uint64_t)(uint32_t)rank * 0x9E3779B97F4A7C15ULL) ^ ((uint64_t)region << 32 | scl);
    h *= 0xBF58476D1CE4E5B9ULL;
    size_t i = (size_t)(h >> 17) & (c->capmemo - 1);
    while (c->memo[i].used &&
           (c->memo[i].rank != rank || c->memo[i].region != region || c->memo[i].scl != scl))
        i = (i + 1) & (c->capmemo - 1);
    return i;
}

/* Adds `ticks` to the (rank, path) entry of this call. */
static void credit(prctx_t *c, uint32_t region, uint32_t scl, uint64_t ticks)
{
    if (c->oom) return;
    if (2 * (c->nmemo + 1) > c->capmemo) {
        size_t cap = c->capmemo ? 2 * c->capmemo : 256;
        memo_t *old = c->memo, *m = calloc(cap, sizeof *m);
        if (!m) {
            c->oom = true;
            return;
        }
        size_t oldcap = c->capmemo;
        c->memo = m, c->capmemo = cap;
        for (size_t i = 0; i < oldcap; i++)
            if (old[i].used) c->memo[memo_slot(c, old[i].rank, old[i].region, old[i].scl)] = old[i];
        free(old);
    }
    size_t k = memo_slot(c, c->rank, region, scl);
    if (!c->memo[k].used) {
        char *path = trace_path(c, region, scl);
        if (!path) {
            c->oom = true;
            return;
        }
        size_t e = 0;
        while (e < c->nrp && (c->rp[e].rank != c->rank || strcmp(c->rp[e].path, path))) e++;
        if (e == c->nrp) {
            if (c->nrp == c->caprp) {
                size_t cap = c->caprp ? 2 * c->caprp : 64;
                rankpath_t *r = realloc(c->rp, cap * sizeof *r);
                if (!r) {
                    free(path);
                    c->oom = true;
                    return;
                }
                c->rp = r, c->caprp = cap;
            }
            c->rp[c->nrp++] = (rankpath_t){.rank = c->rank, .path = path};
        } else {
            free(path);
        }
        c->memo[k] = (memo_t){.rank = c->rank, .region = region, .scl = scl, .entry = e, .used = true};
        c->nmemo++;
    }
    c->rp[c->memo[k].entry].ticks += ticks;
}

static void pr_location(void *u, size_t loc)
{
    prctx_t *c = u;
    c->rank = c->t->loc[loc].rank;
    c->open = false;
}

static void pr_enter(void *u, uint64_t t, uint32_t region, uint32_t scl)
{
    prctx_t *c = u;
    if (!msc_trace_region_is_mpi(c->t, region) || c->open) return;
    c->open = true, c->region = region, c->scl = scl, c->enter = t;
}

static void pr_leave(void *u, uint64_t t, uint32_t region)
{
    prctx_t *c = u;
    if (!c->open || region != c->region) return;
    c->open = false;
    credit(c, region, c->scl, t >= c->enter ? t - c->enter : 0);
}

/* Writes the per-rank stacks of DIR's trace to `o`; `sites` are the
 * profile's n call sites, recorded at `depth`. Returns 0, 1 (failed, said on
 * stderr) or 3 (written from a partial trace). */
static int per_rank(FILE *o, const char *dir, const msc_json_t *sites, size_t n, int64_t depth,
                    size_t *lines)
{
    char anchor[4096], err[512];
    snprintf(anchor, sizeof anchor, "%s/trace/traces.otf2", dir);
    if (access(anchor, R_OK) != 0) {
        fprintf(stderr, "mpiscope export: --per-rank needs the run's trace (%s): the profile merges "
                        "the call sites over the ranks; record with mpiscope run --trace\n", anchor);
        return 1;
    }
    char *damage = msc_trace_damage(anchor, NULL);
    if (damage) fprintf(stderr, "mpiscope export: the trace is partial: %s\n", damage);
    prctx_t c = {0};
    int rc = 1;
    c.bf = calloc(n ? n : 1, sizeof *c.bf);
    if (!c.bf) goto oom;
    size_t i = 0;
    for (const msc_json_t *s = sites->child; s && i < n; s = s->next, i++) {
        const msc_json_t *fr = msc_json_get(s, "frames");
        const msc_json_t *f0 = fr && fr->type == MSC_JARR ? fr->child : NULL;
        c.bf[c.nbf].path = site_path(s, depth);
        if (!c.bf[c.nbf].path) goto oom;
        if (asprintf(&c.bf[c.nbf].key, "%s\t%s\t%" PRId64, msc_json_str(s, "function", "?"),
                     msc_json_str(f0, "file", ""), msc_json_int(f0, "line")) < 0) {
            free(c.bf[c.nbf].path);
            goto oom;
        }
        c.nbf++;
    }
    qsort(c.bf, c.nbf, sizeof *c.bf, by_key);
    c.t = msc_trace_open(anchor, err, sizeof err);
    if (!c.t) {
        fprintf(stderr, "mpiscope export: %s\n", err);
        goto done;
    }
    static const msc_trace_cbs_t cbs = {.location = pr_location, .enter = pr_enter, .leave = pr_leave};
    uint64_t nev = 0;
    if (msc_trace_read(c.t, NULL, &cbs, &c, &nev, err, sizeof err) != 0) {
        fprintf(stderr, "mpiscope export: %s\n", err);
        goto done;
    }
    if (c.oom) goto oom;
    qsort(c.rp, c.nrp, sizeof *c.rp, by_rank_path);
    for (size_t k = 0; k < c.nrp; k++) {
        unsigned __int128 ns = (unsigned __int128)c.rp[k].ticks * 1000000000u / c.t->resolution;
        uint64_t us = (uint64_t)((ns + 500) / 1000);
        if (us == 0) continue;
        fprintf(o, "rank %d;%s %" PRIu64 "\n", c.rp[k].rank, c.rp[k].path, us);
        (*lines)++;
    }
    rc = damage || c.t->unreadable ? 3 : 0;
    goto done;
oom:
    fprintf(stderr, "mpiscope export: out of memory\n");
done:
    if (c.t) msc_trace_close(c.t);
    for (size_t k = 0; k < c.nbf; k++) free(c.bf[k].key), free(c.bf[k].path);
    for (size_t k = 0; k < c.nrp; k++) free(c.rp[k].path);
    free(c.bf);
    free(c.rp);
    free(c.memo);
    free(damage);
    return rc;
}

static void usage(FILE *o)
{
    fprintf(o, "usage: mpiscope export --folded [--per-rank] [-o FILE] DIR|PROFILE.json\n"
               "\n"
               "Writes the profile's call paths as folded stacks (DIR/stacks.folded, or FILE;\n"
               "'-' for stdout), for flamegraph.pl, speedscope or Hatchet:\n"
               "    main;solve;MPI_Allreduce 1234\n"
               "one line per path, outermost frame first, weighted by the MPI time of its calls\n"
               "in microseconds summed over the ranks. Needs call paths: record with\n"
               "MPISCOPE_CALLSITE_DEPTH=2 or more (mpiscope run --set MPISCOPE_CALLSITE_DEPTH=4);\n"
               "stacks longer than the depth start with the frame [cut at depth N].\n"
               "\n"
               "  --per-rank  one stack per rank and path (\"rank 3;main;...\"), from the trace\n"
               "              (mpiscope run --trace): each MPI call of the rank credited, through\n"
               "              its file and line, to the profile's path\n"
               "\n"
               "Exit status: 0 written; 1 no profile or no call sites (or no trace with\n"
               "--per-rank), or not written; 2 bad usage; 3 written from a partial trace.\n");
}

int msc_export_folded(int argc, char **argv)
{
    const char *dir = NULL, *out = NULL;
    bool by_rank = false;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--folded")) {
            continue;
        } else if (!strcmp(argv[i], "--per-rank")) {
            by_rank = true;
        } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            out = argv[++i];
        } else if (argv[i][0] == '-' || dir) {
            if (!strcmp(argv[i], "-o")) fprintf(stderr, "mpiscope export: -o needs a value\n");
            else if (argv[i][0] == '-')
                fprintf(stderr, "mpiscope export: unknown option %s for --folded\n", argv[i]);
            usage(stderr);
            return 2;
        } else {
            dir = argv[i];
        }
    }
    if (!dir) {
        usage(stderr);
        return 2;
    }
    char profile[4096], path[4096];
    struct stat sb;
    bool is_dir = stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode);
    if (by_rank && !is_dir) {
        fprintf(stderr, "mpiscope export: --per-rank needs the run's directory (its trace)\n");
        return 2;
    }
    snprintf(profile, sizeof profile, is_dir ? "%s/profile.json" : "%s", dir);
    if (out) snprintf(path, sizeof path, "%s", out);
    else if (is_dir) snprintf(path, sizeof path, "%s/stacks.folded", dir);
    else snprintf(path, sizeof path, "stacks.folded");
    msc_json_doc_t *doc = msc_load_json(profile, false);
    if (!doc) return 1;
    const msc_json_t *root = msc_json_root(doc);
    if (strcmp(msc_json_str(root, "tool", ""), "mpiscope") != 0) {
        fprintf(stderr, "mpiscope export: %s is not an mpiscope profile\n", profile);
        msc_json_free(doc);
        return 1;
    }
    int64_t depth = msc_json_int(root, "callsite_depth");
    const msc_json_t *sites = msc_json_get(root, "callsites");
    size_t ns = sites && sites->type == MSC_JARR ? sites->n : 0;
    if (depth < 1 || ns == 0) {
        fprintf(stderr, "mpiscope export: %s has no call sites (recorded with "
                        "MPISCOPE_CALLSITE_DEPTH=%" PRId64 "); record with depth 2 or more\n",
                profile, depth);
        msc_json_free(doc);
        return 1;
    }
    if (depth == 1)
        fprintf(stderr, "mpiscope export: %s was recorded with MPISCOPE_CALLSITE_DEPTH=1: every "
                        "stack is one frame; record with 2 or more for call paths\n", profile);
    msc_folded_t *st = NULL;
    size_t n = 0;
    int rc = 1;
    if (msc_folded_stacks(root, &st, &n) != 0) goto oom;
    bool to_stdout = !strcmp(path, "-");
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *o = to_stdout ? stdout : fopen(tmp, "w");
    if (!o) {
        fprintf(stderr, "mpiscope export: cannot write %s\n", tmp);
        goto done;
    }
    size_t lines = 0;
    int prc = 0;
    if (by_rank) {
        prc = per_rank(o, dir, sites, ns, depth, &lines);
        if (prc == 1) {
            if (!to_stdout) {
                fclose(o);
                unlink(tmp);
            }
            goto done;
        }
    }
    for (size_t i = 0; i < n && !by_rank; i++, lines++)
        fprintf(o, "%s %" PRId64 "\n", st[i].path, st[i].us);
    if (!to_stdout) {
        bool bad = ferror(o);
        if (fclose(o) != 0 || bad || rename(tmp, path) != 0) {
            fprintf(stderr, "mpiscope export: cannot write %s\n", path);
            unlink(tmp);
            goto done;
        }
        printf("mpiscope export: wrote %s: %zu stacks from %zu call sites\n", path, lines, ns);
    } else if (fflush(stdout) != 0) {
        goto done;
    }
    rc = prc;
    goto done;
oom:
    fprintf(stderr, "mpiscope export: out of memory\n");
done:
    msc_folded_free(st, n);
    msc_json_free(doc);
    return rc;
}
