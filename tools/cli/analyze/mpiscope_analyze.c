/* mpiscope-analyze: the wait-state analysis of `mpiscope report` run as an
 * MPI program, one build per MPI (<prefix>/lib/mpiscope/<mpi>/), started
 * by `mpiscope report --np N` (waitstate_par.c) as
 *     mpirun -np N mpiscope-analyze ANCHOR OUT.json TRACE_REL
 *
 * Design. Reading the trace is most of the analysis (docs/report.md), and
 * it is per location, so it is what is split: process p of P reads the
 * locations of world ranks [R*p/P, R*(p+1)/P) of the trace (whole ranks,
 * so a rank's sends on a channel keep their serial order) with the same
 * code as the serial analysis (ws_read). Each process sends its records to
 * process 0: a header (call-site nodes and their sums, array lengths) and
 * then the arrays of calls, message ends and collectives straight from
 * memory (ws_part_export), received straight into their final place
 * (ws_merge_begin); process 0 takes the parts in process order, renumbers
 * the call-site nodes (ws_merge_end) and runs phase 2 (ws_finish) on
 * exactly the records the serial analysis would have had: the result is
 * identical to it but for the timings. Process 0 writes OUT.json through
 * a temporary file and a rename. Matching and classifying stay on process
 * 0 (about a tenth of the serial time); Scalasca's replay distributes them
 * too, see docs/report.md.
 *
 * Exit codes: 0, 1 when the trace cannot be read or the output written
 * (message on stderr from the process that failed), 2 for usage.
 */
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "waitstate.h"

/* Point-to-point messages carry at most this many bytes (int counts). */
#define CHUNK ((size_t)1 << 30)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Waits for r, sleeping between tests: a process that has finished reading
 * must not spin on the core another one still reads on (both MPIs poll in
 * blocking calls). */
static void wait_gently(MPI_Request *r)
{
    int done = 0;
    MPI_Test(r, &done, MPI_STATUS_IGNORE);
    while (!done) {
        struct timespec ts = {0, 200000};
        nanosleep(&ts, NULL);
        MPI_Test(r, &done, MPI_STATUS_IGNORE);
    }
}

/* Whether every process reached this point with ok; the failing ones have
 * said why. */
static bool all_ok(bool ok)
{
    int in = ok ? 1 : 0, out = 0;
    MPI_Request r;
    MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, &r);
    wait_gently(&r);
    return out == 1;
}

static void send_bytes(const void *p, size_t len)
{
    for (size_t off = 0; off < len; off += CHUNK) {
        size_t k = len - off < CHUNK ? len - off : CHUNK;
        MPI_Send((const char *)p + off, (int)k, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
    }
}

static void recv_bytes(void *p, size_t len, int from)
{
    for (size_t off = 0; off < len; off += CHUNK) {
        size_t k = len - off < CHUNK ? len - off : CHUNK;
        MPI_Recv((char *)p + off, (int)k, MPI_BYTE, from, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

static int finish(int rc)
{
    MPI_Finalize();
    return rc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me = 0, np = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc != 4) {
        if (me == 0) fprintf(stderr, "usage: mpiscope-analyze ANCHOR OUT.json TRACE_REL\n");
        return finish(2);
    }
    const char *anchor = argv[1], *out = argv[2], *rel = argv[3];
    double t0 = now_s();
    char err[512] = "";
    ws_ctx_t *c = ws_read(anchor, me, np, false, err, sizeof err);
    if (!c) fprintf(stderr, "mpiscope-analyze: process %d: %s\n", me, err);
    if (!all_ok(c != NULL)) {
        ws_ctx_free(c);
        return finish(1);
    }
    void *hdr = NULL;
    size_t hlen = 0, nseg = 0;
    ws_seg_t *seg = NULL;
    bool ok = true;
    if (me != 0) {
        size_t n = ws_ctx_locations(c);
        bool *mine = malloc(n ? n : 1);
        for (size_t i = 0; mine && i < n; i++) mine[i] = ws_part_owns(c, i, me, np);
        ok = mine && ws_part_export(c, mine, &hdr, &hlen, &seg, &nseg) == 0;
        if (!ok) fprintf(stderr, "mpiscope-analyze: process %d: out of memory\n", me);
        free(mine);
    }
    if (!all_ok(ok)) {
        free(hdr), free(seg);
        ws_ctx_free(c);
        return finish(1);
    }
    double read_s = now_s() - t0, read_max = 0;
    MPI_Reduce(&read_s, &read_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    /* Parts go to process 0 one after the other, in process order, each
     * when process 0 asks for it; the transfer itself is blocking. */
    if (me != 0) {
        int go = 0;
        MPI_Request r;
        MPI_Irecv(&go, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &r);
        wait_gently(&r);
        uint64_t n = hlen;
        MPI_Send(&n, 1, MPI_UINT64_T, 0, 0, MPI_COMM_WORLD);
        send_bytes(hdr, hlen);
        for (size_t i = 0; i < nseg; i++) send_bytes(seg[i].p, seg[i].len);
        free(hdr), free(seg);
        ws_ctx_free(c);
        c = NULL;
    } else {
        for (int p = 1; p < np; p++) {
            uint64_t n = 0;
            int go = 1;
            MPI_Send(&go, 1, MPI_INT, p, 2, MPI_COMM_WORLD);
            MPI_Recv(&n, 1, MPI_UINT64_T, p, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            char *h = malloc(n ? n : 1);
            if (!h) {
                fprintf(stderr, "mpiscope-analyze: out of memory for the part of process %d\n", p);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            recv_bytes(h, n, p);
            /* A part that does not fit leaves no way to stay in step with
             * its sender: the analysis ends. */
            if (ws_merge_begin(c, h, n, &seg, &nseg, err, sizeof err) != 0) {
                fprintf(stderr, "mpiscope-analyze: process %d's part: %s\n", p, err);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            free(h);
            for (size_t i = 0; i < nseg; i++) recv_bytes(seg[i].p, seg[i].len, p);
            free(seg);
            if (ws_merge_end(c, err, sizeof err) != 0) {
                fprintf(stderr, "mpiscope-analyze: process %d's part: %s\n", p, err);
                ok = false;
            }
        }
    }
    double merged_s = now_s() - t0;
    int rc = 0;
    if (me == 0) {
        ws_result_t *r = ok ? ws_finish(c, np) : NULL;
        if (!ok) ws_ctx_free(c);
        if (ok && !r) fprintf(stderr, "mpiscope-analyze: out of memory\n");
        if (r) {
            /* Reading: from the start to the last part merged. */
            r->read_s = merged_s > read_max ? merged_s : read_max;
            char tmp[4200];
            snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out, (long)getpid());
            FILE *f = fopen(tmp, "w");
            bool wrote = f && ws_write_json(f, r, rel) == 0;
            if (f && fclose(f) != 0) wrote = false;
            if (!wrote || rename(tmp, out) != 0) {
                fprintf(stderr, "mpiscope-analyze: cannot write %s\n", out);
                unlink(tmp);
                rc = 1;
            }
            ws_free(r);
        } else {
            rc = 1;
        }
    }
    MPI_Request r;
    MPI_Ibcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD, &r);
    wait_gently(&r);
    return finish(rc);
}
