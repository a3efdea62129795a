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
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
} xctx_t;

static double us(xctx_t *c, uint64_t t)
{
    return (double)(int64_t)(t - c->t->offset) * 1e6 / (double)c->t->resolution;
}

static void sep(xctx_t *c)
{
    fputs(c->first ? "\n" : ",\n", c->o);
    c->first = false;
}

static void region(xctx_t *c, uint64_t t, uint32_t r, char ph)
{
    c->events++;
    sep(c);
    fprintf(c->o, "{\"ph\":\"%c\",\"pid\":%d,\"tid\":%u,\"ts\":%.3f,\"cat\":\"%s\",\"name\":", ph,
            c->cur->rank, c->cur->thread, us(c, t), msc_trace_region_is_mpi(c->t, r) ? "MPI" : "user");
    msc_json_put_string(c->o, msc_trace_region_name(c->t, r));
    fputc('}', c->o);
    if (ph == 'B') c->slices++;
}

static void ev_enter(void *u, uint64_t t, uint32_t r, uint32_t scl)
{
    (void)scl;
    region(u, t, r, 'B');
}

static void ev_leave(void *u, uint64_t t, uint32_t r) { region(u, t, r, 'E'); }

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
    if (metric >= c->t->nclass) return;
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
    if (c->tty) {
        fprintf(stderr, "\rmpiscope: export: location %zu of %zu (%.1f M events)\033[K", i + 1,
                c->t->nloc, (double)c->events / 1e6);
        fflush(stderr);
    }
}

static void usage(FILE *o)
{
    fprintf(o, "usage: mpiscope export --chrome [-o FILE] [--allow-partial] DIR\n"
               "\n"
               "Converts DIR/trace/traces.otf2 to Chrome trace-event JSON (DIR/trace.json, or\n"
               "FILE; '-' for stdout), for Perfetto (ui.perfetto.dev) and chrome://tracing: a\n"
               "slice per MPI call and user region, a flow arrow per message, a counter per\n"
               "metric (MPI_T variables). Processes are ranks, threads are locations.\n"
               "\n"
               "Exit status: 0 written; 1 failed; 2 bad usage; 3 written from a partial trace\n"
               "(what is missing is named on stderr; --allow-partial: exit 0).\n");
}

int msc_cmd_export(int argc, char **argv)
{
    const char *dir = NULL, *out = NULL;
    bool chrome = false, allow_partial = false;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--chrome")) {
            chrome = true;
        } else if (!strcmp(argv[i], "--allow-partial")) {
            allow_partial = true;
        } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            out = argv[++i];
        } else if (argv[i][0] == '-' || dir) {
            usage(stderr);
            return 2;
        } else {
            dir = argv[i];
        }
    }
    if (!dir || !chrome) {
        if (dir && !chrome) fprintf(stderr, "mpiscope export: give the format: --chrome\n");
        usage(stderr);
        return 2;
    }
    char anchor[4096], path[4096];
    snprintf(anchor, sizeof anchor, "%s/trace/traces.otf2", dir);
    snprintf(path, sizeof path, "%s", out ? out : "");
    if (!out) snprintf(path, sizeof path, "%s/trace.json", dir);
    if (access(anchor, R_OK) != 0) {
        fprintf(stderr, "mpiscope export: %s has no trace (%s)\n", dir, anchor);
        return 1;
    }
    char *damage = msc_trace_damage(anchor, NULL);
    if (damage) fprintf(stderr, "mpiscope export: the trace is partial: %s\n", damage);
    char err[512];
    xctx_t *c = calloc(1, sizeof *c);
    if (!c) {
        fprintf(stderr, "mpiscope export: out of memory\n");
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
    int rrc = msc_trace_read(c->t, NULL, &cbs, c, &nev, err, sizeof err);
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
    rc = damage && !allow_partial ? 3 : 0;
done:
    free(damage);
    msc_trace_close(c->t);
    free(c->chan);
    free(c);
    return rc;
}
