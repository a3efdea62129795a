/* Wait-state analysis throughput: events per second of `mpiscope report`'s
 * analysis (tools/analysis/waitstate.c, compiled in) on one core, against OTF2's
 * own reader reading the same archive with callbacks that do nothing.
 *   bench_report <anchor.otf2> [repeats]
 * Prints the best of `repeats` runs (default 3) of each, in wall-clock time
 * and in this process's CPU time (the per-core rate, which other load on a
 * shared machine disturbs less). */
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "waitstate.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static OTF2_CallbackCode noop_loc(void *u, OTF2_LocationRef self, OTF2_StringRef name,
                                  OTF2_LocationType type, uint64_t nev, OTF2_LocationGroupRef grp)
{
    (void)name, (void)type, (void)nev, (void)grp;
    uint64_t *l = u;
    l[1 + l[0]++] = self;
    return OTF2_CALLBACK_SUCCESS;
}

/* OTF2's reader alone: global definitions, then each location's events. */
static uint64_t read_only(const char *anchor)
{
    OTF2_Reader *rd = OTF2_Reader_Open(anchor);
    OTF2_Reader_SetSerialCollectiveCallbacks(rd);
    static uint64_t locs[1 + 65536];
    locs[0] = 0;
    OTF2_GlobalDefReader *gd = OTF2_Reader_GetGlobalDefReader(rd);
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, noop_loc);
    OTF2_Reader_RegisterGlobalDefCallbacks(rd, gd, cb, locs);
    uint64_t n = 0;
    OTF2_Reader_ReadAllGlobalDefinitions(rd, gd, &n);
    OTF2_Reader_CloseGlobalDefReader(rd, gd);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    for (uint64_t i = 0; i < locs[0]; i++) OTF2_Reader_SelectLocation(rd, locs[1 + i]);
    OTF2_Reader_OpenEvtFiles(rd);
    uint64_t total = 0;
    OTF2_EvtReaderCallbacks *ecb = OTF2_EvtReaderCallbacks_New();
    for (uint64_t i = 0; i < locs[0]; i++) {
        OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, locs[1 + i]);
        OTF2_Reader_RegisterEvtCallbacks(rd, er, ecb, NULL);
        uint64_t got = 0;
        OTF2_Reader_ReadAllLocalEvents(rd, er, &got);
        total += got;
        OTF2_Reader_CloseEvtReader(rd, er);
    }
    OTF2_EvtReaderCallbacks_Delete(ecb);
    OTF2_Reader_CloseEvtFiles(rd);
    OTF2_Reader_Close(rd);
    return total;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_report <traces.otf2> [repeats]\n");
        return 2;
    }
    int reps = argc > 2 ? atoi(argv[2]) : 3;
    double best_r = 1e30, best_a = 1e30, best_read = 0, best_match = 0;
    double cpu_r = 1e30, cpu_a = 1e30;
    uint64_t ev = 0, ev2 = 0;
    for (int i = 0; i < reps; i++) {
        double t0 = now(), c0 = cpu();
        ev = read_only(argv[1]);
        double t = now() - t0, c = cpu() - c0;
        if (t < best_r) best_r = t;
        if (c < cpu_r) cpu_r = c;
        char err[256];
        t0 = now(), c0 = cpu();
        ws_result_t *r = ws_analyze(argv[1], false, err, sizeof err);
        t = now() - t0, c = cpu() - c0;
        if (c < cpu_a) cpu_a = c;
        if (!r) {
            fprintf(stderr, "bench_report: %s\n", err);
            return 1;
        }
        ev2 = r->events;
        if (t < best_a) best_a = t, best_read = r->read_s, best_match = r->match_s;
        if (i == 0)
            printf("late sender: %.3f ms in %llu receives; wait at barrier %.3f ms\n",
                   (double)r->ns[WS_LATE_SENDER] / 1e6,
                   (unsigned long long)r->instances[WS_LATE_SENDER],
                   (double)r->ns[WS_WAIT_BARRIER] / 1e6);
        ws_free(r);
    }
    printf("events: %llu (analysis read %llu)\n", (unsigned long long)ev, (unsigned long long)ev2);
    printf("OTF2 reader alone:  %.3f s  %.1f M events/s\n", best_r, (double)ev / best_r / 1e6);
    printf("wait-state analysis: %.3f s  %.1f M events/s (read and record %.3f s, match and "
           "classify %.3f s)\n",
           best_a, (double)ev2 / best_a / 1e6, best_read, best_match);
    printf("CPU time: OTF2 reader alone %.3f s  %.1f M events/s; wait-state analysis %.3f s  "
           "%.1f M events/s\n",
           cpu_r, (double)ev / cpu_r / 1e6, cpu_a, (double)ev2 / cpu_a / 1e6);
    return 0;
}
