/* `mpiscope export --chrome DIR [-o FILE]`: the trace as Chrome trace-event
 * JSON (the format chrome://tracing and Perfetto open).
 *
 * One process per rank (pid = world rank), one thread per location (tid =
 * the thread number), a B/E slice per region entered (MPI calls, category
 * "MPI"; user regions, category "user"), a flow arrow (s -> f) per
 * point-to-point message from the send event to the receive event, and a
 * counter ("C") per metric value (MPI_T variables, VT_ counters).
 *
 * Messages are matched the way MPI does: the k-th send on a channel
 * (communicator, sender, receiver, tag) is the k-th receive on it, so each
 * location can be read on its own and both ends compute the same flow id.
 * Timestamps are microseconds from the start of the trace. The archive is
 * read by trace_reader.c, the reader the wait-state analysis uses too.
 *
 * A selection keeps the output small: --ranks reads only those ranks'
 * locations; --from/--to (seconds from the trace's start) keep the slices
 * that begin in [from, to) -- whole, their end even if it is later, so
 * slices still nest -- and the messages and counter values in it. Before
 * anything is written the output's size is estimated from the event counts
 * of the selected locations in the OTF2 definitions (or, where a definition
 * gives none, the size of the location's event file), scaled by the window's
 * share of the trace's length, at EST_BYTES_PER_EVENT bytes per event (plus
 * the longest call-site file name on half of them, the slice starts); above
 * --max-size (1 GiB by default) the export refuses (exit 2) unless --force.
 * Each slice carries its call site ("site": "file:line") when the trace
 * recorded one.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "trace_check.h"
#include "trace_reader.h"
#include "../../src/core/json_out.h"

typedef struct {
    uint64_t key[4];
    uint64_t sends, recvs;
    bool used;
} xchan_t;

typedef struct {
    msc_trace_t *t;
    xchan_t *chan;
    size_t capchan, nchan;
    FILE *o;
    const msc_tr_loc_t *cur;
    uint64_t events, slices, flows, counters;
    bool first, tty, oom;
    /* time window in ticks from the trace's start, [from, to) */
    uint64_t from, to;
    /* per open region of the current location: whether its B was written */
    bool *open;
    size_t depth, capopen;
} xctx_t;

/* Bytes of output per event of the definitions' counts, without call sites:
 * measured 70 on tests/report/waits.c (where 29% of the events are
 * collective begin/end records that write nothing) and 82 on bench/trace's
 * gen_trace; rounded up so that the estimate errs high. */
#define EST_BYTES_PER_EVENT 90
/* Bytes of an OTF2 event file per event, for a location whose definition
 * gives no count (measured 9.3-10.7 on the same traces). */
#define EST_EVT_BYTES_PER_EVENT 9

static bool in_window(const xctx_t *c, uint64_t t)
{
    uint64_t d = t - c->t->offset;
    return t >= c->t->offset && d >= c->from && d < c->to;
}

static double us(xctx_t *c, uint64_t t)
{
    return (double)(int64_t)(t - c->t->offset) * 1e6 / (double)c->t->resolution;
}

static void sep(xctx_t *c)
{
    fputs(c->first ? "\n" : ",\n", c->o);
    c->first = false;
}

static void region(xctx_t *c, uint64_t t, uint32_t r, char ph, uint32_t scl)
{
    sep(c);
    fprintf(c->o, "{\"ph\":\"%c\",\"pid\":%d,\"tid\":%u,\"ts\":%.3f,\"cat\":\"%s\",\"name\":", ph,
            c->cur->rank, c->cur->thread, us(c, t), msc_trace_region_is_mpi(c->t, r) ? "MPI" : "user");
    msc_json_put_string(c->o, msc_trace_region_name(c->t, r));
    if (ph == 'B' && scl != UINT32_MAX && scl < c->t->nscl) {
        char site[4200];
        snprintf(site, sizeof site, "%s:%u", msc_trace_string(c->t, c->t->scl_file[scl]),
                 c->t->scl_line[scl]);
        fputs(",\"args\":{\"site\":", c->o);
        msc_json_put_string(c->o, site);
        fputc('}', c->o);
    }
    fputc('}', c->o);
    if (ph == 'B') c->slices++;
}

/* A slice is kept when it begins in the window; its end is written with it. */
static void ev_enter(void *u, uint64_t t, uint32_t r, uint32_t scl)
{
    xctx_t *c = u;
    c->events++;
    if (c->depth == c->capopen) {
        size_t cap = c->capopen ? 2 * c->capopen : 64;
        bool *n = realloc(c->open, cap * sizeof *n);
        if (!n) {
            c->oom = true;
            return;
        }
        c->open = n, c->capopen = cap;
    }
    bool keep = in_window(c, t);
    c->open[c->depth++] = keep;
    if (keep) region(c, t, r, 'B', scl);
}

static void ev_leave(void *u, uint64_t t, uint32_t r)
{
    xctx_t *c = u;
    c->events++;
    /* A Leave without its Enter (a damaged trace) is written if in the window. */
    bool keep = c->depth ? c->open[--c->depth] : in_window(c, t);
    if (keep) region(c, t, r, 'E', UINT32_MAX);
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

/* Index of a channel, created on first use; SIZE_MAX when out of memory. */
static size_t chan_index(xctx_t *c, const uint64_t k[4])
{
    if (c->nchan * 2 >= c->capchan) {
        size_t cap = c->capchan ? 2 * c->capchan : 256;
        xchan_t *t = calloc(cap, sizeof *t);
        if (!t) return SIZE_MAX;
        for (size_t i = 0; i < c->capchan; i++) {
            if (!c->chan[i].used) continue;
            size_t h = mix(c->chan[i].key[0] ^ mix(c->chan[i].key[1] ^ mix(c->chan[i].key[2] ^
                                                                           mix(c->chan[i].key[3])))) & (cap - 1);
            while (t[h].used) h = (h + 1) & (cap - 1);
            t[h] = c->chan[i];
        }
        free(c->chan);
        c->chan = t;
        c->capchan = cap;
    }
    size_t h = mix(k[0] ^ mix(k[1] ^ mix(k[2] ^ mix(k[3])))) & (c->capchan - 1);
    while (c->chan[h].used && memcmp(c->chan[h].key, k, sizeof c->chan[h].key) != 0)
        h = (h + 1) & (c->capchan - 1);
    if (!c->chan[h].used) {
        c->chan[h].used = true;
        memcpy(c->chan[h].key, k, sizeof c->chan[h].key);
        c->nchan++;
    }
    return h;
}

static void ev_msg(void *u, uint64_t t, bool send, uint32_t peer, uint32_t comm, uint32_t tag,
                   uint64_t len)
{
    xctx_t *c = u;
    c->events++;
    int64_t w = msc_trace_world(c->t, comm, c->cur->rank, peer);
    if (w < 0) return;
    /* The channel counts every message, so flow ids stay those of the whole
     * trace; only those in the window are written. */
    uint64_t k[4] = {comm, send ? (uint64_t)c->cur->rank : (uint64_t)w,
                     send ? (uint64_t)w : (uint64_t)c->cur->rank, tag};
    /* The flow id: hash of the channel and the message's number on it. */
    size_t h = chan_index(c, k); /* may move the table */
    if (h == SIZE_MAX) {
        c->oom = true;
        return;
    }
    xchan_t *ch = &c->chan[h];
    uint64_t nth = send ? ch->sends++ : ch->recvs++;
    if (!in_window(c, t)) return;
    uint64_t id = mix(k[0] * 31 + k[1]) ^ mix(k[2] * 131 + k[3] + 0x9e3779b97f4a7c15ULL);
    id = (mix(id ^ (nth * 0x9e3779b97f4a7c15ULL)) & ((1ULL << 53) - 1));
    sep(c);
    fprintf(c->o, "{\"ph\":\"%s\",\"pid\":%d,\"tid\":%u,\"ts\":%.3f,\"cat\":\"message\","
                  "\"name\":\"message\",\"id\":%llu,\"args\":{\"bytes\":%llu,\"tag\":%u}}",
            send ? "s" : "f\",\"bp\":\"e", c->cur->rank, c->cur->thread, us(c, t),
            (unsigned long long)id, (unsigned long long)len, tag);
    if (send) c->flows++;
}

static void ev_metric(void *u, uint64_t t, uint32_t metric, double v)
{
    xctx_t *c = u;
    c->events++;
    if (metric >= c->t->nclass || !in_window(c, t)) return;
    uint32_t m = c->t->class_member[metric];
    const char *name = m < c->t->nmember ? msc_trace_string(c->t, c->t->member_name[m]) : "metric";
    sep(c);
    fprintf(c->o, "{\"ph\":\"C\",\"pid\":%d,\"tid\":%u,\"ts\":%.3f,\"name\":", c->cur->rank,
            c->cur->thread, us(c, t));
    msc_json_put_string(c->o, name);
    fprintf(c->o, ",\"args\":{");
    msc_json_put_string(c->o, name);
    fprintf(c->o, ":%.17g}}", v);
    c->counters++;
}

static void ev_location(void *u, size_t i)
{
    xctx_t *c = u;
    c->cur = &c->t->loc[i];
    c->depth = 0;
    if (c->tty) {
        fprintf(stderr, "\rmpiscope: export: location %zu of %zu (%.1f M events)\033[K", i + 1,
                c->t->nloc, (double)c->events / 1e6);
        fflush(stderr);
    }
}

static void usage(FILE *o)
{
    fprintf(o, "usage: mpiscope export --chrome [-o FILE] [--ranks LIST] [--from S] [--to S]\n"
               "                       [--max-size SIZE] [--force] [--allow-partial] DIR\n"
               "\n"
               "Converts DIR/trace/traces.otf2 to Chrome trace-event JSON (DIR/trace.json, or\n"
               "FILE; '-' for stdout), for Perfetto (ui.perfetto.dev) and chrome://tracing: a\n"
               "slice per MPI call and user region (with its call site, args.site = file:line,\n"
               "when recorded), a flow arrow per message, a counter per metric (MPI_T\n"
               "variables). Processes are ranks, threads are locations.\n"
               "\n"
               "  --ranks LIST     only these world ranks, e.g. 0,2-3\n"
               "  --from S, --to S only the slices that begin, and the messages and counter\n"
               "                   values, in [S, S) seconds from the trace's start (a slice\n"
               "                   is kept whole)\n"
               "  --max-size SIZE  refuse when the output is estimated larger (bytes, or with\n"
               "                   K, M, G: KiB, MiB, GiB; default 1G). The estimate is made\n"
               "                   before writing, from the event counts of the selected\n"
               "                   locations in the trace's definitions\n"
               "  --force          write whatever the estimate\n"
               "\n"
               "Exit status: 0 written; 1 failed; 2 bad usage, or the estimate is above\n"
               "--max-size (nothing written); 3 written from a partial trace (what is missing\n"
               "is named on stderr; --allow-partial: exit 0).\n"
               "\n"
               "mpiscope export --folded [--per-rank] [-o FILE] DIR: the call paths as folded\n"
               "stacks for flame graphs (details: mpiscope export --folded --help).\n");
}

typedef struct {
    long lo, hi;
} xrange_t;

/* Parses "0,2-3" into ranges; NULL with the reason in why on error. */
static xrange_t *parse_ranks(const char *s, size_t *n, char *why, size_t whylen)
{
    size_t cap = 1;
    for (const char *p = s; *p; p++) cap += *p == ',';
    xrange_t *r = calloc(cap, sizeof *r);
    if (!r) {
        snprintf(why, whylen, "out of memory");
        return NULL;
    }
    *n = 0;
    const char *p = s;
    for (;;) {
        char *e;
        if (*p < '0' || *p > '9') goto bad;
        errno = 0;
        long lo = strtol(p, &e, 10), hi = lo;
        if (errno || lo > INT32_MAX) goto bad;
        if (*e == '-') {
            p = e + 1;
            if (*p < '0' || *p > '9') goto bad;
            hi = strtol(p, &e, 10);
            if (errno || hi > INT32_MAX) goto bad;
            if (hi < lo) {
                snprintf(why, whylen, "range %ld-%ld is backwards", lo, hi);
                free(r);
                return NULL;
            }
        }
        r[(*n)++] = (xrange_t){lo, hi};
        if (*e == '\0') return r;
        if (*e != ',') {
            p = e;
            goto bad;
        }
        p = e + 1;
    }
bad:
    snprintf(why, whylen, "expected ranks such as 0,2-3, got '%s' (at '%s')", s, p);
    free(r);
    return NULL;
}

/* Seconds: a finite number >= 0. */
static bool parse_seconds(const char *s, double *v)
{
    char *e;
    errno = 0;
    *v = strtod(s, &e);
    return e != s && *e == '\0' && !errno && isfinite(*v) && *v >= 0;
}

/* Bytes with an optional K, M or G (binary) suffix; > 0. */
static bool parse_size(const char *s, uint64_t *v)
{
    char *e;
    if (*s < '0' || *s > '9') return false;
    errno = 0;
    unsigned long long n = strtoull(s, &e, 10);
    if (errno) return false;
    int shift = 0;
    if (*e == 'K' || *e == 'k') shift = 10, e++;
    else if (*e == 'M' || *e == 'm') shift = 20, e++;
    else if (*e == 'G' || *e == 'g') shift = 30, e++;
    if (*e == 'i' && shift) e++;
    if (*e == 'B' && shift) e++;
    if (*e != '\0' || n == 0 || n > (UINT64_MAX >> shift)) return false;
    *v = (uint64_t)n << shift;
    return true;
}

static void human(char *b, size_t n, double v)
{
    if (v >= 1024.0 * 1024 * 1024) snprintf(b, n, "%.1f GiB", v / (1024.0 * 1024 * 1024));
    else if (v >= 1024.0 * 1024) snprintf(b, n, "%.1f MiB", v / (1024.0 * 1024));
    else if (v >= 1024.0) snprintf(b, n, "%.1f KiB", v / 1024.0);
    else snprintf(b, n, "%.0f bytes", v);
}

int msc_cmd_export(int argc, char **argv)
{
    const char *dir = NULL, *out = NULL, *ranks = NULL;
    bool chrome = false, allow_partial = false, force = false, has_to = false;
    double from = 0, to = 0;
    uint64_t max_size = 1ULL << 30;
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--folded")) return msc_export_folded(argc, argv);
    for (int i = 0; i < argc; i++) {
        bool more = i + 1 < argc;
        const char *a = argv[i];
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--chrome")) {
            chrome = true;
        } else if (!strcmp(argv[i], "--allow-partial")) {
            allow_partial = true;
        } else if (!strcmp(argv[i], "--force")) {
            force = true;
        } else if (!strcmp(argv[i], "-o") && more) {
            out = argv[++i];
        } else if (!strcmp(a, "--ranks") && more) {
            ranks = argv[++i];
        } else if ((!strcmp(a, "--from") || !strcmp(a, "--to")) && more) {
            double v;
            if (!parse_seconds(argv[++i], &v)) {
                fprintf(stderr, "mpiscope export: %s: expected seconds (a number >= 0), got '%s'\n",
                        a, argv[i]);
                return 2;
            }
            if (a[2] == 'f') from = v;
            else to = v, has_to = true;
        } else if (!strcmp(a, "--max-size") && more) {
            if (!parse_size(argv[++i], &max_size)) {
                fprintf(stderr, "mpiscope export: --max-size: expected bytes > 0 (with K, M or G), "
                                "got '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "--ranks") || !strcmp(a, "--from") || !strcmp(a, "--to") ||
                   !strcmp(a, "--max-size") || !strcmp(a, "-o")) {
            fprintf(stderr, "mpiscope export: %s needs a value\n", a);
            return 2;
        } else if (argv[i][0] == '-' || dir) {
            if (argv[i][0] == '-') fprintf(stderr, "mpiscope export: unknown option %s\n", a);
            usage(stderr);
            return 2;
        } else {
            dir = argv[i];
        }
    }
    if (!dir || !chrome) {
        if (dir && !chrome) fprintf(stderr, "mpiscope export: give the format: --chrome or --folded\n");
        usage(stderr);
        return 2;
    }
    if (has_to && from >= to) {
        fprintf(stderr, "mpiscope export: --from %g must be before --to %g\n", from, to);
        return 2;
    }
    xrange_t *sel = NULL;
    size_t nsel = 0;
    if (ranks) {
        char why[300];
        sel = parse_ranks(ranks, &nsel, why, sizeof why);
        if (!sel) {
            fprintf(stderr, "mpiscope export: --ranks: %s\n", why);
            return 2;
        }
    }
    char anchor[4096], path[4096];
    snprintf(anchor, sizeof anchor, "%s/trace/traces.otf2", dir);
    snprintf(path, sizeof path, "%s", out ? out : "");
    if (!out) snprintf(path, sizeof path, "%s/trace.json", dir);
    if (access(anchor, R_OK) != 0) {
        fprintf(stderr, "mpiscope export: %s has no trace (%s)\n", dir, anchor);
        free(sel);
        return 1;
    }
    char *damage = msc_trace_damage(anchor, NULL);
    if (damage) fprintf(stderr, "mpiscope export: the trace is partial: %s\n", damage);
    char err[512];
    xctx_t *c = calloc(1, sizeof *c);
    bool *want = NULL;
    if (!c) {
        fprintf(stderr, "mpiscope export: out of memory\n");
        free(damage);
        free(sel);
        return 1;
    }
    c->first = true;
    c->t = msc_trace_open(anchor, err, sizeof err);
    int rc = 1;
    bool to_stdout = !strcmp(path, "-");
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (!c->t) {
        fprintf(stderr, "mpiscope export: %s\n", err);
        goto done;
    }
    /* The selection: ranks (checked against the trace), the window in ticks. */
    want = calloc(c->t->nloc ? c->t->nloc : 1, sizeof *want);
    if (!want) {
        fprintf(stderr, "mpiscope export: out of memory\n");
        goto done;
    }
    for (size_t k = 0; k < nsel; k++) {
        if (sel[k].hi >= c->t->ranks) {
            fprintf(stderr, "mpiscope export: --ranks: rank %ld is out of range: the trace has ranks "
                            "0-%d\n", sel[k].hi, c->t->ranks - 1);
            rc = 2;
            goto done;
        }
    }
    for (size_t i = 0; i < c->t->nloc; i++) {
        want[i] = !sel;
        for (size_t k = 0; k < nsel; k++)
            if (c->t->loc[i].rank >= sel[k].lo && c->t->loc[i].rank <= sel[k].hi) want[i] = true;
    }
    double res = (double)c->t->resolution, len_s = (double)c->t->length / res;
    c->from = from * res < 1.8e19 ? (uint64_t)(from * res) : UINT64_MAX;
    c->to = has_to && to * res < 1.8e19 ? (uint64_t)(to * res) : UINT64_MAX;
    if (c->t->length && from >= len_s) {
        fprintf(stderr, "mpiscope export: --from %g is after the trace's end (%.6f s)\n", from, len_s);
        rc = 2;
        goto done;
    }
    /* The estimate: the selected locations' event counts from the
     * definitions, times the window's share of the trace's length. */
    {
        double nev = 0, share = 1, longest = 0;
        for (size_t i = 0; i < c->t->nloc; i++) {
            if (!want[i]) continue;
            if (c->t->loc[i].events) {
                nev += (double)c->t->loc[i].events;
                continue;
            }
            /* No count in the definitions: from the event file's size. */
            char evt[4200];
            struct stat st;
            snprintf(evt, sizeof evt, "%s/traces/%llu.evt", c->t->dir ? c->t->dir : ".",
                     (unsigned long long)c->t->loc[i].id);
            if (stat(evt, &st) == 0) nev += (double)st.st_size / EST_EVT_BYTES_PER_EVENT;
        }
        if (c->t->length) {
            double end = has_to && to < len_s ? to : len_s;
            share = end > from ? (end - from) / len_s : 0;
        }
        for (size_t k = 0; k < c->t->nscl; k++) {
            size_t l = strlen(msc_trace_string(c->t, c->t->scl_file[k]));
            if ((double)l > longest) longest = (double)l;
        }
        double est = nev * share * (EST_BYTES_PER_EVENT + (longest ? (longest + 20) / 2 : 0));
        if (est > (double)max_size && !force) {
            char e[64], m[64];
            human(e, sizeof e, est), human(m, sizeof m, (double)max_size);
            fprintf(stderr, "mpiscope export: the output would be about %s (%.0f bytes: %.0f "
                            "events selected at about %.0f bytes each), above the limit of %s "
                            "(--max-size %llu): nothing written. Select with --ranks or "
                            "--from/--to, or raise --max-size, or give --force\n",
                    e, est, nev * share, EST_BYTES_PER_EVENT + (longest ? (longest + 20) / 2 : 0), m,
                    (unsigned long long)max_size);
            rc = 2;
            goto done;
        }
    }
    c->o = to_stdout ? stdout : fopen(tmp, "w");
    if (!c->o) {
        fprintf(stderr, "mpiscope export: cannot write %s\n", tmp);
        goto done;
    }
    fprintf(c->o, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":\"mpiscope\",\"trace\":");
    msc_json_put_string(c->o, anchor);
    if (damage) {
        fprintf(c->o, ",\"partial\":");
        msc_json_put_string(c->o, damage);
    }
    fprintf(c->o, "},\"traceEvents\":[");
    int last_rank = -1;
    for (size_t i = 0; i < c->t->nloc; i++) {
        const msc_tr_loc_t *l = &c->t->loc[i];
        if (!want[i]) continue;
        if (l->rank != last_rank) {
            sep(c);
            fprintf(c->o, "{\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"name\":\"process_name\","
                          "\"args\":{\"name\":\"rank %d\"}},\n{\"ph\":\"M\",\"pid\":%d,\"tid\":0,"
                          "\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%d}}",
                    l->rank, l->rank, l->rank, l->rank);
            last_rank = l->rank;
        }
        sep(c);
        fprintf(c->o, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%u,\"name\":\"thread_name\","
                      "\"args\":{\"name\":\"%s %u\"}}",
                l->rank, l->thread, l->thread ? "thread" : "main thread", l->thread);
    }
    c->tty = isatty(2);
    static const msc_trace_cbs_t cbs = {.location = ev_location, .enter = ev_enter,
                                        .leave = ev_leave, .msg = ev_msg, .metric = ev_metric};
    uint64_t nev = 0;
    int rrc = msc_trace_read(c->t, want, &cbs, c, &nev, err, sizeof err);
    if (c->tty) fprintf(stderr, "\r\033[K");
    if (rrc != 0 || c->oom) {
        fprintf(stderr, "mpiscope export: %s\n", rrc ? err : "out of memory");
        if (!to_stdout) {
            fclose(c->o);
            unlink(tmp);
        }
        goto done;
    }
    fprintf(c->o, "\n]}\n");
    if (!to_stdout) {
        bool bad = ferror(c->o);
        if (fclose(c->o) != 0 || bad || rename(tmp, path) != 0) {
            fprintf(stderr, "mpiscope export: cannot write %s\n", path);
            unlink(tmp);
            goto done;
        }
        printf("mpiscope export: wrote %s: %llu slices, %llu messages, %llu counter values\n", path,
               (unsigned long long)c->slices, (unsigned long long)c->flows,
               (unsigned long long)c->counters);
    }
    /* A location the reader could not read whole (its file gave more or
     * fewer events than its definition counts): partial too, found only
     * now (the file's header is written; stderr and the exit status say it). */
    if (!damage && c->t->unreadable) {
        fprintf(stderr, "mpiscope export: the trace is partial: %zu location%s gave more or fewer "
                        "events than %s definition%s count%s (an event file cut short)\n",
                c->t->unreadable, c->t->unreadable == 1 ? "" : "s",
                c->t->unreadable == 1 ? "its" : "their", c->t->unreadable == 1 ? "" : "s",
                c->t->unreadable == 1 ? "s" : "");
        rc = allow_partial ? 0 : 3;
        goto done;
    }
    rc = damage && !allow_partial ? 3 : 0;
done:
    free(damage);
    free(sel);
    free(want);
    free(c->open);
    msc_trace_close(c->t);
    free(c->chan);
    free(c);
    return rc;
}
