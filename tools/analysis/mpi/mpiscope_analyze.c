/* mpiscope-analyze: the wait-state analysis of `mpiscope report` run as an
 * MPI program, one build per MPI (<prefix>/lib/mpiscope/<mpi>/), started
 * by `mpiscope report --np N` (waitstate_par.c) as
 *     mpirun -np N mpiscope-analyze ANCHOR OUT.json TRACE_REL [what-if options]
 * (the what-if options of `mpiscope replay`: analysis_opts.c)
 *
 * Design. Process p of P reads the locations of world ranks
 * [R*p/P, R*(p+1)/P) of the trace (whole ranks) with the code of the
 * serial analysis (msc_an_read), and matches and analyses them (msc_an_finish):
 * the sends travel to the process of their receiver and the answers back
 * by all-to-alls, collective instances meet in reductions, the call sites
 * on process 0 (waitstate_match.c), and the later passes exchange the same
 * way (analysis.h). This file gives msc_an_finish those
 * exchanges over MPI_COMM_WORLD. Every exchange is nonblocking and waited
 * for gently: a process that is done must not spin on a core that another
 * one still works on (both MPIs poll in blocking calls). Process 0 writes
 * OUT.json through a temporary file and a rename; the result is identical
 * to the serial analysis but for the timings.
 *
 * Exit codes: 0, 1 when the trace cannot be read or the output written
 * (message on stderr from the process that failed), 2 for usage.
 */
#include <mpi.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis.h"
#include "spill.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Waits for r, sleeping between tests. */
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

static void *alloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "mpiscope-analyze: out of memory (%zu bytes)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

/* Counts and displacements of an exchange in units of `size`-byte records;
 * MPI takes them as int. */
static void int_counts(const uint64_t *n, int np, int *cnt, int *disp)
{
    uint64_t off = 0;
    for (int q = 0; q < np; q++) {
        if (n[q] > INT_MAX || off > INT_MAX) {
            fprintf(stderr, "mpiscope-analyze: more than %d records in one exchange; "
                            "give the analysis more processes\n", INT_MAX);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        cnt[q] = (int)n[q], disp[q] = (int)off;
        off += n[q];
    }
}

/* The all-to-all in rounds of at most EXCHANGE_ROUND bytes sent per
 * process: the receive buffer lives in the analysis's spill file and each
 * round's pages leave the resident set after it (spill.c), so an exchange
 * of the records costs a bounded window, not the records. */
#define EXCHANGE_ROUND ((uint64_t)16 << 20)
static void net_alltoallv(void *u, const void *send, const uint64_t *scount, size_t size,
                          void **recv, uint64_t *rcount)
{
    (void)u;
    int np = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Request r;
    MPI_Ialltoall(scount, 1, MPI_UINT64_T, rcount, 1, MPI_UINT64_T, MPI_COMM_WORLD, &r);
    wait_gently(&r);
    int *sc = alloc(4 * (size_t)np * sizeof *sc), *sd = sc + np, *rc = sd + np, *rd = rc + np;
    int_counts(scount, np, sc, sd); /* checks that the whole fits MPI's int */
    int_counts(rcount, np, rc, rd);
    uint64_t *sd0 = alloc(2 * (size_t)np * sizeof *sd0), *rd0 = sd0 + np;
    for (int q = 0; q < np; q++) sd0[q] = (uint64_t)sd[q], rd0[q] = (uint64_t)rd[q];
    uint64_t total = 0;
    for (int q = 0; q < np; q++) total += rcount[q];
    *recv = ws_big_alloc(total ? total * size : 1);
    if (!*recv) {
        fprintf(stderr, "mpiscope-analyze: out of memory (%llu bytes)\n",
                (unsigned long long)(total * size));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* Records per peer per round, and the rounds everyone makes. */
    uint64_t per = EXCHANGE_ROUND / size / (uint64_t)np;
    if (!per) per = 1;
    uint64_t rounds = 0;
    for (int q = 0; q < np; q++) {
        uint64_t m = scount[q] > rcount[q] ? scount[q] : rcount[q];
        if ((m + per - 1) / per > rounds) rounds = (m + per - 1) / per;
    }
    MPI_Iallreduce(MPI_IN_PLACE, &rounds, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD, &r);
    wait_gently(&r);
    MPI_Datatype rec;
    MPI_Type_contiguous((int)size, MPI_BYTE, &rec);
    MPI_Type_commit(&rec);
    for (uint64_t k = 0; k < rounds; k++) {
        for (int q = 0; q < np; q++) {
            uint64_t a = k * per;
            uint64_t ns = scount[q] > a ? scount[q] - a : 0, nr = rcount[q] > a ? rcount[q] - a : 0;
            sc[q] = (int)(ns < per ? ns : per), rc[q] = (int)(nr < per ? nr : per);
            sd[q] = (int)(sd0[q] + (scount[q] < a ? scount[q] : a));
            rd[q] = (int)(rd0[q] + (rcount[q] < a ? rcount[q] : a));
        }
        MPI_Ialltoallv(send, sc, sd, rec, *recv, rc, rd, rec, MPI_COMM_WORLD, &r);
        wait_gently(&r);
        ws_spill_check();
    }
    MPI_Type_free(&rec);
    free(sc), free(sd0);
}

static void net_allreduce(void *u, uint64_t *v, size_t n, msc_an_reduce_t op)
{
    (void)u;
    /* MPICH 4.0.2 compares MPI_UINT64_T as signed in MPI_MIN and MPI_MAX:
     * those take values below 2^63 (waitstate.h), as MPI_INT64_T. */
    MPI_Op o = op == MSC_AN_SUM ? MPI_SUM : op == MSC_AN_MIN ? MPI_MIN : MPI_MAX;
    MPI_Datatype t = op == MSC_AN_SUM ? MPI_UINT64_T : MPI_INT64_T;
    for (size_t off = 0; off < n; off += INT_MAX / 2) {
        int k = (int)(n - off < INT_MAX / 2 ? n - off : INT_MAX / 2);
        MPI_Request r;
        MPI_Iallreduce(MPI_IN_PLACE, v + off, k, t, o, MPI_COMM_WORLD, &r);
        wait_gently(&r);
    }
}

static void net_gather(void *u, const void *p, size_t len, void **all, uint64_t **lens)
{
    (void)u;
    int me = 0, np = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    uint64_t n = len;
    *lens = alloc((size_t)np * sizeof **lens);
    MPI_Request r;
    MPI_Igather(&n, 1, MPI_UINT64_T, *lens, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD, &r);
    wait_gently(&r);
    int *cnt = NULL, *disp = NULL;
    *all = NULL;
    if (me == 0) {
        cnt = alloc(2 * (size_t)np * sizeof *cnt), disp = cnt + np;
        int_counts(*lens, np, cnt, disp);
        uint64_t total = 0;
        for (int q = 0; q < np; q++) total += (*lens)[q];
        *all = alloc(total);
    }
    if (len > INT_MAX) {
        fprintf(stderr, "mpiscope-analyze: %zu bytes of call sites are too many\n", len);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Igatherv(p, (int)len, MPI_BYTE, *all, cnt, disp, MPI_BYTE, 0, MPI_COMM_WORLD, &r);
    wait_gently(&r);
    free(cnt);
    if (me != 0) {
        free(*lens);
        *lens = NULL;
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
    msc_an_opts_t opts = {0};
    char err[512] = "";
    bool usage = argc < 4 || (argc - 4) % 2 != 0;
    for (int i = 4; !usage && i + 1 < argc; i += 2) {
        int k = msc_an_parse_option(argv[i], argv[i + 1], &opts, err, sizeof err);
        if (k <= 0) {
            if (me == 0 && k < 0) fprintf(stderr, "mpiscope-analyze: %s\n", err);
            usage = true;
        }
    }
    if (usage) {
        if (me == 0)
            fprintf(stderr, "usage: mpiscope-analyze ANCHOR OUT.json TRACE_REL [--latency L] "
                            "[--bandwidth B] [--scale S]...\n");
        msc_an_opts_free(&opts);
        return finish(2);
    }
    const char *anchor = argv[1], *out = argv[2], *rel = argv[3];
    double t0 = now_s();
    msc_an_ctx_t *c = msc_an_read(anchor, me, np, &opts, err, sizeof err);
    if (!c) fprintf(stderr, "mpiscope-analyze: process %d: %s\n", me, err);
    if (!all_ok(c != NULL)) {
        msc_an_ctx_free(c);
        msc_an_opts_free(&opts);
        return finish(1);
    }
    double read_s = now_s() - t0, read_max = read_s;
    MPI_Request rq;
    MPI_Iallreduce(&read_s, &read_max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &rq);
    wait_gently(&rq);
    msc_an_net_t net = {.part = me, .nparts = np, .alltoallv = net_alltoallv,
                        .allreduce = net_allreduce, .gather = net_gather};
    msc_an_result_t *r = msc_an_finish(c, &net);
    int rc = 0;
    if (me == 0) {
        msc_an_set_read_time(r, read_max);
        char tmp[4200];
        snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out, (long)getpid());
        FILE *f = fopen(tmp, "w");
        bool wrote = f && msc_an_write_json(f, r, rel) == 0;
        if (f && fclose(f) != 0) wrote = false;
        if (!wrote || rename(tmp, out) != 0) {
            fprintf(stderr, "mpiscope-analyze: cannot write %s\n", out);
            unlink(tmp);
            rc = 1;
        }
    }
    msc_an_free(r);
    msc_an_opts_free(&opts);
    MPI_Ibcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD, &rq);
    wait_gently(&rq);
    return finish(rc);
}
