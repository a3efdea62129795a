/* The analysis split into parts, without MPI: threads play the analysis
 * processes, each reading its part of a trace (ws_read) and matching and
 * classifying it with the others (ws_finish) through an exchange of shared
 * memory and barriers in place of mpiscope-analyze's MPI. With 2, 3 and 5
 * parts, waitstates.json (with every pass, the timeline's too) is identical
 * to the serial analysis's but for the
 * "analysis" line, which says how many processes took part.
 * The spill file stays off (one per process, and the threads share one).
 *   parts_test <traces.otf2>        exit code 0 when every check passes */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "waitstate.h"

enum { MAXP = 8 };

typedef struct {
    pthread_barrier_t bar;
    int np;
    const void *send[MAXP];
    const uint64_t *count[MAXP];
    uint64_t *v[MAXP];
    size_t len[MAXP];
    const char *anchor;
    char *json;
} shared_t;

typedef struct {
    shared_t *sh;
    int part;
} part_t;

static void sync_all(shared_t *sh) { pthread_barrier_wait(&sh->bar); }

static void t_alltoallv(void *u, const void *send, const uint64_t *scount, size_t size,
                        void **recv, uint64_t *rcount)
{
    part_t *me = u;
    shared_t *sh = me->sh;
    sh->send[me->part] = send, sh->count[me->part] = scount;
    sync_all(sh);
    uint64_t total = 0;
    for (int q = 0; q < sh->np; q++) total += rcount[q] = sh->count[q][me->part];
    char *out = malloc(total * size + 1), *p = out;
    for (int q = 0; q < sh->np; q++) {
        uint64_t skip = 0;
        for (int j = 0; j < me->part; j++) skip += sh->count[q][j];
        memcpy(p, (const char *)sh->send[q] + skip * size, rcount[q] * size);
        p += rcount[q] * size;
    }
    *recv = out;
    sync_all(sh); /* the senders may free their records now */
}

static void t_allreduce(void *u, uint64_t *v, size_t n, ws_reduce_t op)
{
    part_t *me = u;
    shared_t *sh = me->sh;
    sh->v[me->part] = v;
    sync_all(sh);
    uint64_t *acc = malloc(n * sizeof *acc);
    memcpy(acc, sh->v[0], n * sizeof *acc);
    for (int q = 1; q < sh->np; q++)
        for (size_t i = 0; i < n; i++) {
            uint64_t x = sh->v[q][i];
            acc[i] = op == WS_SUM ? acc[i] + x : op == WS_MIN ? (x < acc[i] ? x : acc[i])
                                                             : (x > acc[i] ? x : acc[i]);
        }
    sync_all(sh);
    memcpy(v, acc, n * sizeof *acc);
    free(acc);
}

static void t_gather(void *u, const void *p, size_t len, void **all, uint64_t **lens)
{
    part_t *me = u;
    shared_t *sh = me->sh;
    sh->send[me->part] = p, sh->len[me->part] = len;
    sync_all(sh);
    *all = NULL, *lens = NULL;
    if (me->part == 0) {
        size_t total = 0;
        *lens = malloc((size_t)sh->np * sizeof **lens);
        for (int q = 0; q < sh->np; q++) total += (*lens)[q] = sh->len[q];
        char *o = malloc(total + 1);
        *all = o;
        for (int q = 0; q < sh->np; q++) memcpy(o, sh->send[q], sh->len[q]), o += sh->len[q];
    }
    sync_all(sh);
}

/* waitstates.json without its "analysis" line; the line in *analysis. */
static char *json_of(ws_result_t *r, char *analysis, size_t alen)
{
    char *mem = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&mem, &len);
    ws_write_json(f, r, "trace/traces.otf2");
    fclose(f);
    char *a = strstr(mem, "  \"analysis\":");
    if (a) {
        char *e = strchr(a, '\n');
        if (analysis) snprintf(analysis, alen, "%.*s", (int)(e - a), a);
        memmove(a, e + 1, strlen(e + 1) + 1);
    }
    ws_free(r);
    return mem;
}

static void *run_part(void *arg)
{
    part_t *me = arg;
    shared_t *sh = me->sh;
    char err[256];
    /* Every pass, the HTML timeline's too. */
    static const msc_an_opts_t opts = {.timeline = true};
    ws_ctx_t *c = msc_an_read(sh->anchor, me->part, sh->np, &opts, err, sizeof err);
    if (!c) {
        fprintf(stderr, "parts_test: part %d of %d: %s\n", me->part, sh->np, err);
        exit(1); /* the other parts would wait for this one for ever */
    }
    ws_net_t net = {.part = me->part, .nparts = sh->np, .u = me, .alltoallv = t_alltoallv,
                    .allreduce = t_allreduce, .gather = t_gather};
    ws_result_t *r = ws_finish(c, &net);
    if (me->part == 0) {
        char line[256] = "";
        sh->json = json_of(r, line, sizeof line);
        char want[64];
        snprintf(want, sizeof want, "\"processes\": %d,", sh->np);
        if (!strstr(line, want)) {
            fprintf(stderr, "parts_test: %d parts: the analysis line says %s\n", sh->np, line);
            free(sh->json);
            sh->json = NULL;
        }
    } else {
        if (r->nsites) fprintf(stderr, "parts_test: part %d has call sites\n", me->part), exit(1);
        ws_free(r);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: parts_test <traces.otf2>\n");
        return 2;
    }
    /* The spill file (spill.c) is one per process, as mpiscope-analyze runs
     * one part per process; the parts here are threads of one process, so
     * they keep their arrays in malloc'd memory (the same results). Shared,
     * its allocator raced between the threads and 2 of 10 runs under ASan
     * gave a part's critical path different sites. */
    setenv("MPISCOPE_ANALYSIS_SPILL", "0", 1);
    char err[256];
    static const msc_an_opts_t opts = {.timeline = true};
    ws_result_t *serial = msc_an_analyze(argv[1], &opts, err, sizeof err);
    if (!serial) {
        fprintf(stderr, "parts_test: serial analysis: %s\n", err);
        return 1;
    }
    if ((!serial->messages && !serial->collectives) || !serial->nsites) {
        fprintf(stderr, "parts_test: the trace has no messages or collectives, or no sites\n");
        return 1;
    }
    char *want = json_of(serial, NULL, 0);
    int fails = 0;
    static const int parts[] = {2, 3, 5};
    for (size_t k = 0; k < sizeof parts / sizeof *parts; k++) {
        shared_t sh = {.np = parts[k], .anchor = argv[1]};
        pthread_barrier_init(&sh.bar, NULL, (unsigned)sh.np);
        pthread_t th[MAXP];
        part_t pt[MAXP];
        for (int p = 0; p < sh.np; p++) {
            pt[p] = (part_t){&sh, p};
            pthread_create(&th[p], NULL, run_part, &pt[p]);
        }
        for (int p = 0; p < sh.np; p++) pthread_join(th[p], NULL);
        pthread_barrier_destroy(&sh.bar);
        if (!sh.json || strcmp(sh.json, want) != 0) {
            fprintf(stderr, "parts_test: FAIL: %d parts differ from the serial analysis\n",
                    sh.np);
            if (sh.json) fprintf(stderr, "--- serial\n%s\n--- %d parts\n%s\n", want, sh.np, sh.json);
            fails++;
        } else {
            printf("parts_test: %d parts: waitstates.json identical (%zu bytes)\n", sh.np,
                   strlen(want));
        }
        free(sh.json);
    }
    free(want);
    return fails != 0;
}
