/* Writes a synthetic OTF2 trace for the wait-state benchmark, shaped like
 * mpiscope's: N ranks (one location each), each iteration a user region
 * "compute", then even ranks MPI_Send to rank+1 and odd ranks MPI_Recv from
 * rank-1 (Enter, MpiSend/MpiRecv, Leave), and every 50 iterations an
 * MPI_Barrier (Enter, MpiCollectiveBegin, MpiCollectiveEnd, Leave). Odd
 * ranks enter their receive 1 µs before the send: every receive is a Late
 * Sender of 1 µs.
 *   gen_trace <dir> <ranks> <iterations>
 */
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>

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

enum { R_SEND, R_RECV, R_BARRIER, R_COMPUTE };

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: gen_trace <dir> <ranks> <iterations>\n");
        return 2;
    }
    int n = atoi(argv[2]);
    long iters = atol(argv[3]);
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
                          "machine", "rank", "MPI_COMM_WORLD", "thread"};
    for (uint32_t i = 0; i < sizeof strs / sizeof *strs; i++) OTF2_GlobalDefWriter_WriteString(g, i, strs[i]);
    OTF2_GlobalDefWriter_WriteRegion(g, R_SEND, 1, 1, 0, OTF2_REGION_ROLE_POINT2POINT,
                                     OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(g, R_RECV, 2, 2, 0, OTF2_REGION_ROLE_POINT2POINT,
                                     OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(g, R_BARRIER, 3, 3, 0, OTF2_REGION_ROLE_BARRIER,
                                     OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(g, R_COMPUTE, 4, 4, 0, OTF2_REGION_ROLE_FUNCTION,
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
