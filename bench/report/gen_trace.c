/* Writes a synthetic OTF2 trace for the wait-state benchmark, shaped like
 * mpiscope's: N ranks (one location each), each iteration a user region
 * "compute", then even ranks MPI_Send to rank+1 and odd ranks MPI_Recv from
 * rank-1 (Enter, MpiSend/MpiRecv, Leave), and every 50 iterations an
 * MPI_Barrier (Enter, MpiCollectiveBegin, MpiCollectiveEnd, Leave). Odd
 * ranks enter their receive 1 µs before the send: every receive is a Late
 * Sender of 1 µs.
 *   gen_trace <dir> <ranks> <iterations>
 *
 * With a fifth argument, a trace whose every analysis result is known in
 * closed form (tests/report/closed_form_test.c derives them), ranks n,
 * iterations I, computation C = 10 µs, all MPI calls of zero length unless
 * they wait:
 *   imbalance   rank r computes (r + 1) C, then MPI_Barrier (leaving when
 *               the last one entered);
 *   pipeline    rank 0 computes C and sends to 1; rank r > 0 receives from
 *               r - 1, computes C and sends to r + 1 (the last rank only
 *               receives): a pipeline that serializes;
 *   slowlink    (2 ranks) both compute C; rank 0 sends 1 MB that rank 1's
 *               receive gets X = 3 C later (a slow link); then MPI_Barrier;
 *   latesender  (2 ranks) rank 0 receives at once; rank 1 computes in the
 *               user region "heavy" for D = 5 C, then sends; then both
 *               compute C.
 *   latesender-long  the same with D = 5 s: receives and regions of 2^32
 *               ticks and more (the analysis keeps such lengths apart).
 *   latereceiver  (2 ranks) rank 0 sends at once (a synchronous send that
 *               leaves when the receive begins); rank 1 computes in the
 *               user region "heavy" for D = 5 C, then receives; then both
 *               compute C.
 */
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static OTF2_FlushType pre_flush(void *u, OTF2_FileType ft, OTF2_LocationRef l, void *c, bool fin)
{
    (void)u, (void)ft, (void)l, (void)c, (void)fin;
    return OTF2_FLUSH;
}
static OTF2_TimeStamp post_flush(void *u, OTF2_FileType ft, OTF2_LocationRef l)
{
    (void)u, (void)ft, (void)l;
    return 0;
}
static OTF2_FlushCallbacks flush_cb = {pre_flush, post_flush};

enum { R_SEND, R_RECV, R_BARRIER, R_COMPUTE, R_HEAVY };

enum { C_NS = 10000, X_NS = 3 * C_NS, D_NS = 5 * C_NS, BIG = 1000000 };
#define D_LONG_NS 5000000000ull

static void call(OTF2_EvtWriter *w, uint64_t t0, uint64_t t1, int region)
{
    OTF2_EvtWriter_Enter(w, NULL, t0, (OTF2_RegionRef)region);
    OTF2_EvtWriter_Leave(w, NULL, t1, (OTF2_RegionRef)region);
}

static void send(OTF2_EvtWriter *w, uint64_t t, int to, uint64_t bytes)
{
    OTF2_EvtWriter_Enter(w, NULL, t, R_SEND);
    OTF2_EvtWriter_MpiSend(w, NULL, t, (uint32_t)to, 0, 7, bytes);
    OTF2_EvtWriter_Leave(w, NULL, t, R_SEND);
}

static void recv(OTF2_EvtWriter *w, uint64_t t0, uint64_t t1, int from, uint64_t bytes)
{
    OTF2_EvtWriter_Enter(w, NULL, t0, R_RECV);
    OTF2_EvtWriter_MpiRecv(w, NULL, t1, (uint32_t)from, 0, 7, bytes);
    OTF2_EvtWriter_Leave(w, NULL, t1, R_RECV);
}

static void barrier(OTF2_EvtWriter *w, uint64_t t0, uint64_t t1)
{
    OTF2_EvtWriter_Enter(w, NULL, t0, R_BARRIER);
    OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, t0);
    OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, t1, OTF2_COLLECTIVE_OP_BARRIER, 0,
                                    OTF2_UNDEFINED_UINT32, 0, 0);
    OTF2_EvtWriter_Leave(w, NULL, t1, R_BARRIER);
}

/* The events of rank r in scenario `sc`; returns its last timestamp. */
static uint64_t scenario(OTF2_EvtWriter *w, const char *sc, int r, int n, long iters)
{
    uint64_t t = 1000;
    for (long i = 0; i < iters; i++) {
        if (!strcmp(sc, "imbalance")) {
            call(w, t, t + (uint64_t)(r + 1) * C_NS, R_COMPUTE);
            barrier(w, t + (uint64_t)(r + 1) * C_NS, t + (uint64_t)n * C_NS);
            t += (uint64_t)n * C_NS;
        } else if (!strcmp(sc, "pipeline")) {
            /* Rank r's i-th work starts at (i + r) C. */
            uint64_t start = 1000 + (uint64_t)(i + r) * C_NS;
            if (r > 0) recv(w, t, start, r - 1, 64);
            call(w, start, start + C_NS, R_COMPUTE);
            t = start + C_NS;
            if (r + 1 < n) send(w, t, r + 1, 64);
        } else if (!strcmp(sc, "slowlink")) {
            call(w, t, t + C_NS, R_COMPUTE);
            t += C_NS;
            if (r == 0) {
                send(w, t, 1, BIG);
                barrier(w, t, t + X_NS);
            } else {
                recv(w, t, t + X_NS, 0, BIG);
                barrier(w, t + X_NS, t + X_NS);
            }
            t += X_NS;
        } else if (!strcmp(sc, "latereceiver")) {
            if (r == 0) {
                OTF2_EvtWriter_Enter(w, NULL, t, R_SEND);
                OTF2_EvtWriter_MpiSend(w, NULL, t, 1, 0, 7, BIG);
                OTF2_EvtWriter_Leave(w, NULL, t + D_NS, R_SEND);
            } else {
                call(w, t, t + D_NS, R_HEAVY);
                recv(w, t + D_NS, t + D_NS, 0, BIG);
            }
            t += D_NS;
            call(w, t, t + C_NS, R_COMPUTE);
            t += C_NS;
        } else if (!strncmp(sc, "latesender", 10)) {
            uint64_t d = strcmp(sc, "latesender-long") ? D_NS : D_LONG_NS;
            if (r == 0) {
                recv(w, t, t + d, 1, 64);
            } else {
                call(w, t, t + d, R_HEAVY);
                send(w, t + d, 0, 64);
            }
            t += d;
            call(w, t, t + C_NS, R_COMPUTE);
            t += C_NS;
        }
    }
    return t;
}

int main(int argc, char **argv)
{
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: gen_trace <dir> <ranks> <iterations> "
                        "[imbalance|pipeline|slowlink|latesender|latesender-long|latereceiver]\n");
        return 2;
    }
    int n = atoi(argv[2]);
    long iters = atol(argv[3]);
    const char *sc = argc == 5 ? argv[4] : NULL;
    if (sc && strcmp(sc, "imbalance") && strcmp(sc, "pipeline") && strcmp(sc, "slowlink") &&
        strcmp(sc, "latesender") && strcmp(sc, "latesender-long") && strcmp(sc, "latereceiver")) {
        fprintf(stderr, "gen_trace: no scenario '%s'\n", sc);
        return 2;
    }
    OTF2_Archive *ar = OTF2_Archive_Open(argv[1], "traces", OTF2_FILEMODE_WRITE, 1024 * 1024,
                                         4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX,
                                         OTF2_COMPRESSION_NONE);
    if (!ar) return 1;
    OTF2_Archive_SetFlushCallbacks(ar, &flush_cb, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(ar);
    OTF2_Archive_OpenEvtFiles(ar);
    uint64_t tmax = 0;
    for (int r = 0; r < n; r++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, (OTF2_LocationRef)r);
        uint64_t t = 1000;
        if (sc) {
            t = scenario(w, sc, r, n, iters);
            iters = 0;
        }
        for (long i = 0; i < iters; i++) {
            OTF2_EvtWriter_Enter(w, NULL, t, R_COMPUTE);
            t += 5000;
            OTF2_EvtWriter_Leave(w, NULL, t, R_COMPUTE);
            if (r % 2 == 0 && r + 1 < n) {
                OTF2_EvtWriter_Enter(w, NULL, t + 1000, R_SEND);
                OTF2_EvtWriter_MpiSend(w, NULL, t + 1000, (uint32_t)(r + 1), 0, 7, 64);
                OTF2_EvtWriter_Leave(w, NULL, t + 1500, R_SEND);
            } else if (r % 2 == 1) {
                OTF2_EvtWriter_Enter(w, NULL, t, R_RECV);
                OTF2_EvtWriter_MpiRecv(w, NULL, t + 2000, (uint32_t)(r - 1), 0, 7, 64);
                OTF2_EvtWriter_Leave(w, NULL, t + 2000, R_RECV);
            }
            t += 2000;
            if (i % 50 == 49) {
                OTF2_EvtWriter_Enter(w, NULL, t + (uint64_t)r * 10, R_BARRIER);
                OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, t + (uint64_t)r * 10);
                OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, t + 1000, OTF2_COLLECTIVE_OP_BARRIER, 0,
                                                OTF2_UNDEFINED_UINT32, 0, 0);
                OTF2_EvtWriter_Leave(w, NULL, t + 1000, R_BARRIER);
                t += 1000;
            }
        }
        if (t > tmax) tmax = t;
        if (sc) iters = atol(argv[3]);
        OTF2_Archive_CloseEvtWriter(ar, w);
    }
    OTF2_Archive_CloseEvtFiles(ar);
    /* Empty local definitions, as a real trace has (mappings, clock offsets). */
    OTF2_Archive_OpenDefFiles(ar);
    for (int r = 0; r < n; r++)
        OTF2_Archive_CloseDefWriter(ar, OTF2_Archive_GetDefWriter(ar, (OTF2_LocationRef)r));
    OTF2_Archive_CloseDefFiles(ar);
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(ar);
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, tmax + 1, OTF2_UNDEFINED_TIMESTAMP);
    const char *strs[] = {"", "MPI_Send", "MPI_Recv", "MPI_Barrier", "compute", "MPI",
                          "machine", "rank", "MPI_COMM_WORLD", "thread", "heavy"};
    for (uint32_t i = 0; i < sizeof strs / sizeof *strs; i++) OTF2_GlobalDefWriter_WriteString(g, i, strs[i]);
    OTF2_GlobalDefWriter_WriteRegion(g, R_SEND, 1, 1, 0, OTF2_REGION_ROLE_POINT2POINT,
                                     OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(g, R_RECV, 2, 2, 0, OTF2_REGION_ROLE_POINT2POINT,
                                     OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(g, R_BARRIER, 3, 3, 0, OTF2_REGION_ROLE_BARRIER,
                                     OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(g, R_COMPUTE, 4, 4, 0, OTF2_REGION_ROLE_FUNCTION,
                                     OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(g, R_HEAVY, 10, 10, 0, OTF2_REGION_ROLE_FUNCTION,
                                     OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 6, 6, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    uint64_t *members = malloc((size_t)n * sizeof *members);
    for (int r = 0; r < n; r++) {
        OTF2_GlobalDefWriter_WriteLocationGroup(g, (OTF2_LocationGroupRef)r, 7,
                                                OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        uint64_t nev = 0;
        OTF2_GlobalDefWriter_WriteLocation(g, (OTF2_LocationRef)r, 9, OTF2_LOCATION_TYPE_CPU_THREAD,
                                           nev, (OTF2_LocationGroupRef)r);
        members[r] = (uint64_t)r;
    }
    OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, (uint32_t)n, members);
    OTF2_GlobalDefWriter_WriteGroup(g, 1, 8, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, (uint32_t)n, members);
    OTF2_GlobalDefWriter_WriteComm(g, 0, 8, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    free(members);
    OTF2_Archive_Close(ar);
    return 0;
}
