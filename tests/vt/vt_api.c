/* The VT_ API, one group of calls per run (argv[1]); check_vt.py reads the
 * trace and compares it with what this program wrote to
 * $MPISCOPE_OUTPUT/vt.<rank> ("key value" lines: times are VT_timestamp()
 * seconds, checked against the trace relative to the "t0" anchor, the
 * VT_enter of region "anchor").
 *   control    VT_initialize, getrank, tracestate, traceoff/on, flush, timestamps
 *   regions    classes, functions, enter/leave, begin/end, source locations
 *   comm       sendmsg/recvmsg, msgevent (own and other ends), op, opevent
 *   unordered  nested periods, msgevent earlier than later events, left open
 *   counters   countdef/countval, registerthread, registernamed, comment
 *   misuse     error codes for every kind of misuse, before and after init
 * Exits nonzero when a call returns an unexpected code.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "VT.h"

static FILE *out;
static int rank, size, bad;

#define CHECK(call, want)                                                            \
    do {                                                                             \
        int rc_ = (call);                                                            \
        if (rc_ != (want)) {                                                         \
            fprintf(stderr, "rank %d: %s returned %d, expected %d\n", rank, #call, rc_, \
                    (int)(want));                                                    \
            bad = 1;                                                                 \
        }                                                                            \
    } while (0)

static void pause_ms(int ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* Region "anchor" entered between VT_timestamp t0 and t0b: the Enter's trace
 * time fixes the offset between the two clocks to within t0b - t0 (a busy
 * machine may preempt the program between the two calls). */
static void anchor(void)
{
    int h;
    CHECK(VT_funcdef("anchor", VT_NOCLASS, &h), VT_OK);
    double t0 = VT_timestamp();
    CHECK(VT_enter(h, VT_NOSCL), VT_OK);
    double t0b = VT_timestamp();
    CHECK(VT_leave(VT_NOSCL), VT_OK);
    fprintf(out, "t0 %.9f\nt0b %.9f\n", t0, t0b);
}

static void control(void)
{
    int r = -1, st = -1;
    CHECK(VT_getrank(&r), VT_OK);
    if (r != rank) fprintf(stderr, "VT_getrank %d != %d\n", r, rank), bad = 1;
    CHECK(VT_tracestate(&st), VT_OK);
    fprintf(out, "state_on %d\n", st);
    CHECK(VT_flush(), VT_OK);
    double a = VT_timestamp(), b = VT_timestamp();
    if (b < a || VT_timestart() > a) fprintf(stderr, "timestamps out of order\n"), bad = 1;
    VT_traceoff();
    CHECK(VT_tracestate(&st), VT_OK);
    fprintf(out, "state_off %d\n", st);
    MPI_Barrier(MPI_COMM_WORLD); /* not recorded */
    VT_traceon();
    MPI_Barrier(MPI_COMM_WORLD); /* recorded */
    CHECK(VT_tracestate(&st), VT_OK);
    fprintf(out, "state_again %d\n", st);
}

static void regions(void)
{
    int cls, f_outer, f_inner, f_plain, loc1, loc2;
    CHECK(VT_classdef("Solver", &cls), VT_OK);
    CHECK(VT_funcdef("outer", cls, &f_outer), VT_OK);
    CHECK(VT_funcdef("inner", cls, &f_inner), VT_OK);
    CHECK(VT_funcdef("plain", VT_NOCLASS, &f_plain), VT_OK);
    CHECK(VT_scldef("solver.c", 42, &loc1), VT_OK);
    CHECK(VT_scldef("solver.c", 77, &loc2), VT_OK);
    for (int i = 0; i < 3; i++) {
        CHECK(VT_enter(f_outer, loc1), VT_OK);
        CHECK(VT_thisloc(loc2), VT_OK);
        CHECK(VT_enter(f_inner, VT_NOSCL), VT_OK); /* takes loc2 */
        pause_ms(2);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(VT_leave(VT_NOSCL), VT_OK);
        CHECK(VT_leave(VT_NOSCL), VT_OK);
    }
    CHECK(VT_begin(f_plain), VT_OK);
    pause_ms(1);
    CHECK(VT_end(f_plain), VT_OK);
}

static void comm(void)
{
    int loc;
    CHECK(VT_scldef("comm.c", 10, &loc), VT_OK);
    /* A ring of logged messages: each rank sends 100+rank bytes to the next. */
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    CHECK(VT_log_sendmsg(next, 100 + rank, 7, VT_COMM_WORLD, loc), VT_OK);
    /* VT_commdef: communicator 10 holds every rank in reverse order, 11 only
     * rank 0. A ring on 10 (tag 13, 30+world rank bytes), in its ranks;
     * rank 0 messages itself on 11 (tag 14); the others are no members. */
    int rev[64], only0 = 0, dup2[2] = {0, 0};
    for (int i = 0; i < size; i++) rev[i] = size - 1 - i;
    CHECK(VT_commdef(10, size, rev), VT_OK);
    CHECK(VT_commdef(10, size, rev), VT_ERR_COMM); /* defined already */
    CHECK(VT_commdef(VT_COMM_WORLD, size, rev), VT_ERR_COMM);
    CHECK(VT_commdef(12, 2, dup2), VT_ERR_BADARG);
    CHECK(VT_commdef(12, size + 1, rev), VT_ERR_BADARG);
    CHECK(VT_commdef(11, 1, &only0), VT_OK);
    int me10 = size - 1 - rank, next10 = (me10 + 1) % size, prev10 = (me10 + size - 1) % size;
    CHECK(VT_log_sendmsg(next10, 30 + rank, 13, 10, VT_NOSCL), VT_OK);
    CHECK(VT_log_recvmsg(prev10, 30 + rev[prev10], 13, 10, VT_NOSCL), VT_OK);
    CHECK(VT_log_sendmsg(size, 1, 13, 10, VT_NOSCL), VT_ERR_BADARG);
    CHECK(VT_log_sendmsg(0, 1, 14, 11, VT_NOSCL), rank == 0 ? VT_OK : VT_ERR_COMM);
    if (size > 1) /* ends of other members cannot be logged on a VT_commdef communicator */
        CHECK(VT_log_msgevent(me10, next10, 1, 15, 10, VT_timestamp(), VT_NOSCL, VT_NOSCL),
              VT_ERR_COMM);
    CHECK(VT_log_recvmsg(prev, 100 + prev, 7, VT_COMM_WORLD, VT_NOSCL), VT_OK);
    CHECK(VT_log_sendmsg(0, 5, 9, VT_COMM_SELF, VT_NOSCL), VT_OK);
    CHECK(VT_log_recvmsg(0, 5, 9, VT_COMM_SELF, VT_NOSCL), VT_OK);
    /* msgevent, both ends on this rank (self). */
    double ts = VT_timestamp();
    pause_ms(3);
    CHECK(VT_log_msgevent(rank, rank, 64, 11, VT_COMM_WORLD, ts, loc, VT_NOSCL), VT_OK);
    fprintf(out, "self_sendts %.9f\n", ts);
    /* msgevent logged by rank 0 alone for a message from rank 1 to rank 0:
     * the send end belongs to rank 1 and reaches it at finalize. */
    if (rank == 0 && size > 1) {
        ts = VT_timestamp();
        pause_ms(2);
        CHECK(VT_log_msgevent(1, 0, 256, 12, VT_COMM_WORLD, ts, VT_NOSCL, VT_NOSCL), VT_OK);
        fprintf(out, "foreign_sendts %.9f\n", ts);
    }
    /* Operations: a 5 ms bcast from root 0, as this process saw it. */
    ts = VT_timestamp();
    pause_ms(5);
    CHECK(VT_log_op(VT_OP_BCAST, VT_COMM_WORLD, 0, 1000, 1000, ts, VT_NOSCL), VT_OK);
    fprintf(out, "op_startts %.9f\n", ts);
    /* An allreduce for every process at once, logged by rank 0. */
    if (rank == 0) {
        int *bs = calloc((size_t)size, sizeof *bs), *br = calloc((size_t)size, sizeof *br);
        double *st = calloc((size_t)size, sizeof *st);
        double now = VT_timestamp();
        for (int i = 0; i < size; i++) bs[i] = 8 * (i + 1), br[i] = 16 * (i + 1), st[i] = now;
        pause_ms(2);
        CHECK(VT_log_opevent(VT_OP_ALLREDUCE, VT_COMM_WORLD, 0, size, bs, br, st, VT_NOSCL),
              VT_OK);
        free(bs), free(br), free(st);
    }
}

static void unordered(void)
{
    int f;
    CHECK(VT_funcdef("work", VT_NOCLASS, &f), VT_OK);
    /* t1: send starts; t2: a region ends; t3: the message is logged. */
    double t1 = VT_timestamp();
    CHECK(VT_begin_unordered(), VT_OK);
    CHECK(VT_begin_unordered(), VT_OK); /* nested */
    CHECK(VT_enter(f, VT_NOSCL), VT_OK);
    pause_ms(2);
    CHECK(VT_leave(VT_NOSCL), VT_OK);
    double t2 = VT_timestamp();
    CHECK(VT_log_msgevent(rank, rank, 32, 21, VT_COMM_WORLD, t1, VT_NOSCL, VT_NOSCL), VT_OK);
    CHECK(VT_end_unordered(), VT_OK);
    /* Still inside the outer period: a second message started before t2. */
    CHECK(VT_log_msgevent(rank, rank, 48, 22, VT_COMM_WORLD, (t1 + t2) / 2, VT_NOSCL, VT_NOSCL),
          VT_OK);
    CHECK(VT_end_unordered(), VT_OK);
    fprintf(out, "u_t1 %.9f\n", t1);
    MPI_Barrier(MPI_COMM_WORLD);
    /* A period never closed: sorted at finalize. */
    double t3 = VT_timestamp();
    CHECK(VT_begin_unordered(), VT_OK);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(VT_log_msgevent(rank, rank, 80, 23, VT_COMM_WORLD, t3, VT_NOSCL, VT_NOSCL), VT_OK);
    fprintf(out, "u_t3 %.9f\n", t3);
}

static void counters(void)
{
    int cls, ci, cf, c64;
    CHECK(VT_classdef("Counters", &cls), VT_OK);
    CHECK(VT_countdef("iterations", cls, VT_COUNT_INTEGER | VT_COUNT_ABSVAL | VT_COUNT_VALID_POINT,
                      VT_ME, NULL, "#", &ci), VT_OK);
    CHECK(VT_countdef("residual", cls, VT_COUNT_FLOAT | VT_COUNT_VALID_SAMPLE, VT_ME, NULL, "1",
                      &cf), VT_OK);
    CHECK(VT_countdef("bytes", VT_NOCLASS, VT_COUNT_INTEGER64, VT_GROUP_PROCESS, NULL, "B", &c64),
          VT_OK);
    for (int i = 1; i <= 3; i++) {
        unsigned int words[2] = {0, (unsigned)(i * 10 + rank)};
        CHECK(VT_countval(1, &ci, words), VT_OK);
        double r = 1.0 / i;
        CHECK(VT_countval(1, &cf, &r), VT_OK);
    }
    struct { long long b; double r; } both = {-5, 0.25};
    int hs[2] = {c64, cf};
    CHECK(VT_countval(2, hs, &both), VT_OK);
    CHECK(VT_registerthread(-1), VT_OK);
    CHECK(VT_registernamed("main", -1), VT_OK);
    CHECK(VT_log_comment("hello from the VT_ API"), VT_OK);
}

static void misuse(void)
{
    int h, cls, loc;
    CHECK(VT_funcdef("ok", VT_NOCLASS, &h), VT_OK);
    CHECK(VT_funcdef("x", 999, &h), VT_ERR_BADSYMBOLID);
    CHECK(VT_funcdef(NULL, VT_NOCLASS, &h), VT_ERR_BADARG);
    CHECK(VT_classdef("c", NULL), VT_ERR_BADARG);
    CHECK(VT_classdef("c", &cls), VT_OK);
    CHECK(VT_enter(12345, VT_NOSCL), VT_ERR_BADSYMBOLID);
    CHECK(VT_enter(-1, VT_NOSCL), VT_ERR_BADSYMBOLID);
    CHECK(VT_enter(h, 777), VT_ERR_BADSCLID);
    CHECK(VT_leave(VT_NOSCL), VT_ERR_BADREQUEST); /* nothing entered */
    CHECK(VT_end(h), VT_ERR_BADREQUEST);
    CHECK(VT_scldef("f.c", 1, &loc), VT_OK);
    CHECK(VT_thisloc(4242), VT_ERR_BADSCLID);
    CHECK(VT_log_sendmsg(0, 10, 1, VT_COMM_INVALID, VT_NOSCL), VT_ERR_COMM);
    CHECK(VT_log_sendmsg(0, 10, 1, 77, VT_NOSCL), VT_ERR_COMM);
    CHECK(VT_log_sendmsg(size, 10, 1, VT_COMM_WORLD, VT_NOSCL), VT_ERR_BADARG);
    CHECK(VT_log_recvmsg(1, 10, 1, VT_COMM_SELF, VT_NOSCL), VT_ERR_BADARG);
    CHECK(VT_log_sendmsg(0, -1, 1, VT_COMM_WORLD, VT_NOSCL), VT_ERR_BADARG);
    CHECK(VT_log_sendmsg(0, 1, 1, VT_COMM_WORLD, 999), VT_ERR_BADSCLID);
    CHECK(VT_log_msgevent(0, 0, 1, 1, VT_COMM_INVALID, 0.0, VT_NOSCL, VT_NOSCL), VT_ERR_COMM);
    CHECK(VT_log_op(VT_OP_INVALID, VT_COMM_WORLD, 0, 0, 0, VT_timestamp(), VT_NOSCL),
          VT_ERR_BADKIND);
    CHECK(VT_log_op(VT_OP_COUNT, VT_COMM_WORLD, 0, 0, 0, VT_timestamp(), VT_NOSCL),
          VT_ERR_BADKIND);
    CHECK(VT_log_op(9999, VT_COMM_WORLD, 0, 0, 0, VT_timestamp(), VT_NOSCL), VT_ERR_BADKIND);
    CHECK(VT_log_op(VT_OP_BARRIER, 5, 0, 0, 0, VT_timestamp(), VT_NOSCL), VT_ERR_COMM);
    CHECK(VT_log_op(VT_OP_BCAST, VT_COMM_WORLD, size, 0, 0, VT_timestamp(), VT_NOSCL),
          VT_ERR_BADARG);
    int b[64] = {0};
    double st[64] = {0};
    CHECK(VT_log_opevent(VT_OP_BARRIER, VT_COMM_WORLD, 0, size + 1, b, b, st, VT_NOSCL),
          VT_ERR_BADARG);
    CHECK(VT_log_opevent(VT_OP_BARRIER, VT_COMM_WORLD, 0, size, NULL, b, st, VT_NOSCL),
          VT_ERR_BADARG);
    CHECK(VT_end_unordered(), VT_ERR_BADREQUEST);
    int c;
    CHECK(VT_countdef("c", 555, VT_COUNT_FLOAT, VT_ME, NULL, "", &c), VT_ERR_BADSYMBOLID);
    CHECK(VT_countdef("c", VT_NOCLASS, 3, VT_ME, NULL, "", &c), VT_ERR_BADKIND);
    CHECK(VT_countdef("c", VT_NOCLASS, VT_COUNT_FLOAT, 12, NULL, "", &c), VT_ERR_BADARG);
    double v = 1;
    int nohandle = 31337;
    CHECK(VT_countval(1, &nohandle, &v), VT_ERR_BADSYMBOLID);
    CHECK(VT_countval(1, NULL, &v), VT_ERR_BADARG);
    CHECK(VT_log_comment(NULL), VT_ERR_BADARG);
    CHECK(VT_getrank(NULL), VT_ERR_BADARG);
    CHECK(VT_tracestate(NULL), VT_ERR_BADARG);
    fprintf(out, "misuse_done 1\n");
}

int main(int argc, char **argv)
{
    const char *group = argc > 1 ? argv[1] : "control";
    if (strcmp(group, "misuse") == 0) {
        /* Before MPI_Init: not initialized, never a crash. */
        int h, st;
        if (VT_funcdef("early", VT_NOCLASS, &h) != VT_ERR_NOTINITIALIZED ||
            VT_enter(1, VT_NOSCL) != VT_ERR_NOTINITIALIZED ||
            VT_log_sendmsg(0, 1, 1, VT_COMM_WORLD, VT_NOSCL) != VT_ERR_NOTINITIALIZED ||
            VT_log_op(VT_OP_BARRIER, VT_COMM_WORLD, 0, 0, 0, 0.0, VT_NOSCL) != VT_ERR_NOTINITIALIZED ||
            VT_begin_unordered() != VT_ERR_NOTINITIALIZED ||
            VT_tracestate(&st) != VT_ERR_NOTINITIALIZED || VT_finalize() != VT_ERR_NOTINITIALIZED) {
            fprintf(stderr, "a call before MPI_Init did not return VT_ERR_NOTINITIALIZED\n");
            return 1;
        }
        MPI_Init(&argc, &argv);
    } else if (strcmp(group, "control") == 0) {
        if (VT_initialize(&argc, &argv) != VT_OK) return 1; /* calls MPI_Init */
    } else {
        MPI_Init(&argc, &argv);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *dir = getenv("MPISCOPE_OUTPUT");
    char path[4096];
    snprintf(path, sizeof path, "%s/vt.%d", dir ? dir : ".", rank);
    out = fopen(path, "w");
    if (!out) return 1;
    fprintf(out, "group %s\n", group);
    anchor();
    if (strcmp(group, "control") == 0) control();
    else if (strcmp(group, "regions") == 0) regions();
    else if (strcmp(group, "comm") == 0) comm();
    else if (strcmp(group, "unordered") == 0) unordered();
    else if (strcmp(group, "counters") == 0) counters();
    else if (strcmp(group, "misuse") == 0) misuse();
    fclose(out);
    if (strcmp(group, "control") == 0) {
        if (VT_finalize() != VT_OK) bad = 1; /* calls MPI_Finalize */
    } else {
        MPI_Finalize();
        int h;
        if (strcmp(group, "misuse") == 0 && VT_funcdef("late", VT_NOCLASS, &h) != VT_ERR_NOTINITIALIZED)
            bad = 1;
    }
    return bad;
}
