/* Trace test program: blocking, nonblocking and persistent point-to-point,
 * probes, a cancelled receive, collectives on the world, a split and a
 * duplicated communicator, an intercommunicator, a freed communicator and
 * MPI_Pcontrol. Every traced call goes through C() so that check_trace.py
 * knows how many Enter events each rank must have. Any number of ranks >= 2. */
#include "expect.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    C(MPI_Comm_rank, MPI_COMM_WORLD, &rank);
    C(MPI_Comm_size, MPI_COMM_WORLD, &size);
    int partner = rank % 2 == 0 ? rank + 1 : rank - 1;
    if (partner >= size) partner = MPI_PROC_NULL;
    int buf[64] = {0}, rbuf[64] = {0};
    MPI_Status st;

    /* Blocking, with a message to nobody. */
    for (int i = 0; i < 3; i++) {
        if (rank % 2 == 0) {
            C(MPI_Send, buf, 8 + i, MPI_INT, partner, 10 + i, MPI_COMM_WORLD);
            C(MPI_Recv, rbuf, 64, MPI_INT, partner, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        } else {
            C(MPI_Recv, rbuf, 64, MPI_INT, MPI_ANY_SOURCE, 10 + i, MPI_COMM_WORLD, &st);
            C(MPI_Ssend, buf, 3, MPI_DOUBLE, partner, 20, MPI_COMM_WORLD);
        }
    }
    C(MPI_Send, buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    C(MPI_Sendrecv, buf, 5, MPI_INT, partner, 30, rbuf, 5, MPI_INT, partner, 30, MPI_COMM_WORLD,
      MPI_STATUS_IGNORE);

    /* Probes. */
    if (rank % 2 == 0) {
        C(MPI_Send, buf, 4, MPI_CHAR, partner, 40, MPI_COMM_WORLD);
    } else if (partner != MPI_PROC_NULL) {
        int flag = 0, n = 0;
        C(MPI_Probe, partner, 40, MPI_COMM_WORLD, &st);
        C(MPI_Get_count, &st, MPI_CHAR, &n);
        C(MPI_Iprobe, partner, 40, MPI_COMM_WORLD, &flag, &st);
        C(MPI_Recv, rbuf, n, MPI_CHAR, partner, 40, MPI_COMM_WORLD, &st);
    }

    /* Nonblocking: Wait, Waitall, Waitany, Waitsome, Test loops. */
    MPI_Request rq[4];
    C(MPI_Irecv, rbuf, 16, MPI_INT, partner, 50, MPI_COMM_WORLD, &rq[0]);
    C(MPI_Isend, buf, 16, MPI_INT, partner, 50, MPI_COMM_WORLD, &rq[1]);
    C(MPI_Wait, &rq[0], &st);
    C(MPI_Wait, &rq[1], MPI_STATUS_IGNORE);
    C(MPI_Irecv, rbuf, 8, MPI_INT, partner, 51, MPI_COMM_WORLD, &rq[0]);
    C(MPI_Irecv, rbuf + 8, 8, MPI_INT, partner, 52, MPI_COMM_WORLD, &rq[1]);
    C(MPI_Issend, buf, 7, MPI_INT, partner, 52, MPI_COMM_WORLD, &rq[2]);
    C(MPI_Isend, buf, 6, MPI_INT, partner, 51, MPI_COMM_WORLD, &rq[3]);
    C(MPI_Waitall, 4, rq, MPI_STATUSES_IGNORE);
    C(MPI_Irecv, rbuf, 8, MPI_INT, partner, 53, MPI_COMM_WORLD, &rq[0]);
    C(MPI_Isend, buf, 2, MPI_INT, partner, 53, MPI_COMM_WORLD, &rq[1]);
    int idx, out, ids[4], flag = 0;
    C(MPI_Waitany, 2, rq, &idx, &st);
    C(MPI_Waitsome, 2, rq, &out, ids, MPI_STATUSES_IGNORE);
    if (out != MPI_UNDEFINED && out < 1) abort();
    /* The first test cannot complete: the partner sends after the barrier. */
    C(MPI_Irecv, rbuf, 8, MPI_INT, partner, 54, MPI_COMM_WORLD, &rq[0]);
    C(MPI_Test, &rq[0], &flag, &st);
    if (partner != MPI_PROC_NULL) CHECK(!flag);
    C(MPI_Barrier, MPI_COMM_WORLD);
    C(MPI_Isend, buf, 3, MPI_INT, partner, 54, MPI_COMM_WORLD, &rq[1]);
    while (!flag) C(MPI_Test, &rq[0], &flag, &st);
    for (flag = 0; !flag;) C(MPI_Testall, 1, &rq[1], &flag, MPI_STATUSES_IGNORE);

    /* A receive that is cancelled. */
    C(MPI_Irecv, rbuf, 1, MPI_INT, partner, 999, MPI_COMM_WORLD, &rq[0]);
    C(MPI_Cancel, &rq[0]);
    C(MPI_Wait, &rq[0], &st);

    /* Persistent requests. */
    MPI_Request pr[2];
    C(MPI_Recv_init, rbuf, 4, MPI_INT, partner, 60, MPI_COMM_WORLD, &pr[0]);
    C(MPI_Send_init, buf, 4, MPI_INT, partner, 60, MPI_COMM_WORLD, &pr[1]);
    for (int i = 0; i < 3; i++) {
        C(MPI_Start, &pr[0]);
        C(MPI_Start, &pr[1]);
        C(MPI_Waitall, 2, pr, MPI_STATUSES_IGNORE);
    }
    C(MPI_Startall, 2, pr);
    C(MPI_Waitall, 2, pr, MPI_STATUSES_IGNORE);
    C(MPI_Request_free, &pr[0]);
    C(MPI_Request_free, &pr[1]);

    /* Collectives on the world, a split, a dup, nonblocking. */
    double d = rank, r = 0;
    C(MPI_Bcast, &d, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    C(MPI_Allreduce, &d, &r, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    C(MPI_Reduce, &d, &r, 1, MPI_DOUBLE, MPI_MAX, size - 1, MPI_COMM_WORLD);
    int *all = malloc(sizeof(int) * (size_t)size * 4);
    C(MPI_Allgather, &rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    C(MPI_Gather, &rank, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    C(MPI_Alltoall, all, 1, MPI_INT, all + size, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Comm half, dup, inter;
    C(MPI_Comm_split, MPI_COMM_WORLD, rank % 2, size - rank, &half);
    C(MPI_Comm_dup, half, &dup);
    int hrank;
    C(MPI_Comm_rank, half, &hrank);
    C(MPI_Allreduce, &d, &r, 1, MPI_DOUBLE, MPI_SUM, half);
    C(MPI_Bcast, &d, 1, MPI_DOUBLE, 0, dup);
    C(MPI_Barrier, dup);
    MPI_Request cr;
    C(MPI_Iallreduce, &d, &r, 1, MPI_DOUBLE, MPI_SUM, half, &cr);
    C(MPI_Wait, &cr, MPI_STATUS_IGNORE);
    C(MPI_Ibarrier, MPI_COMM_WORLD, &cr);
    C(MPI_Wait, &cr, MPI_STATUS_IGNORE);
    /* Point-to-point on the sub-communicator: rank 0 of each half to rank 1. */
    int hsize;
    C(MPI_Comm_size, half, &hsize);
    if (hsize > 1 && hrank == 0) C(MPI_Send, buf, 9, MPI_INT, 1, 70, half);
    if (hsize > 1 && hrank == 1) C(MPI_Recv, rbuf, 9, MPI_INT, 0, 70, half, MPI_STATUS_IGNORE);

    /* An intercommunicator between the halves: leaders are world ranks 0 and 1. */
    if (size >= 2) {
        int lead = hsize - 1; /* split key size-rank: the lowest world rank is last */
        C(MPI_Intercomm_create, half, lead, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 80, &inter);
        int irank;
        C(MPI_Comm_rank, inter, &irank);
        C(MPI_Barrier, inter);
        if (irank == 0 && rank % 2 == 0) C(MPI_Send, buf, 11, MPI_INT, 0, 81, inter);
        if (irank == 0 && rank % 2 == 1) C(MPI_Recv, rbuf, 11, MPI_INT, 0, 81, inter, &st);
        C(MPI_Comm_free, &inter);
    }
    C(MPI_Comm_free, &dup);
    C(MPI_Comm_free, &half);

    /* argv[1] more ping-pongs (to fill small trace buffers). */
    long reps = argc > 1 ? atol(argv[1]) : 0;
    for (long i = 0; i < reps && partner != MPI_PROC_NULL; i++) {
        if (rank % 2 == 0) {
            C(MPI_Send, buf, 1, MPI_INT, partner, 90, MPI_COMM_WORLD);
            C(MPI_Recv, rbuf, 1, MPI_INT, partner, 91, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            C(MPI_Recv, rbuf, 1, MPI_INT, partner, 90, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            C(MPI_Send, buf, 1, MPI_INT, partner, 91, MPI_COMM_WORLD);
        }
    }

    /* Recording off: these calls are not in the trace. */
    MPI_Pcontrol(0);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Allreduce(&d, &r, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Pcontrol(1);
    C(MPI_Barrier, MPI_COMM_WORLD);

    /* Derived types: a type of 4 ints is sent and freed, then a type of 2
     * ints (which may get the freed handle back) is sent; the receives take
     * bytes, so a send record with a stale type size would not match. */
    if (partner != MPI_PROC_NULL) {
        for (int n = 4; n >= 2; n -= 2) {
            MPI_Datatype dt;
            C(MPI_Type_contiguous, n, MPI_INT, &dt);
            C(MPI_Type_commit, &dt);
            if (rank % 2 == 0) C(MPI_Send, buf, 1, dt, partner, 90 + n, MPI_COMM_WORLD);
            else C(MPI_Recv, rbuf, 64, MPI_BYTE, partner, 90 + n, MPI_COMM_WORLD, &st);
            C(MPI_Type_free, &dt);
        }
    }

    free(all);
    expect_write(rank);
    MPI_Finalize();
    return 0;
}
