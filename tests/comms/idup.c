/* idup: communicators made by the nonblocking constructors MPI_Comm_idup and
 * MPI_Comm_idup_with_info, which exist only when their request completes
 * (MPI-3.1 5.4.2), completed in every way a program can: MPI_Wait, an
 * MPI_Test loop, MPI_Waitall together with a receive whose sender first
 * waits for its own idup (a tool that made a blocking collective of its own
 * at the completion would hang here), MPI_Waitany, and MPI_Testall. Any
 * number of ranks; ROUNDS rounds, so that the MPI hands freed handles out
 * again. Per round:
 *   a = idup(WORLD)                     completed by MPI_Wait
 *   b = idup_with_info(WORLD, info)     (MPI_Comm_idup before MPI-4) rank 0: MPI_Wait, then sends to rank 1;
 *                                       rank 1: MPI_Waitall(b's request, that receive)
 *   c = idup(a)                         completed by an MPI_Test loop
 *   d = idup(split of WORLD, reversed)  completed by MPI_Waitany
 *   e = idup(b)                         completed by MPI_Testall
 * then on each of a..e: MSGS messages of INTS ints to the next rank of the
 * communicator (MPI_Isend/MPI_Recv/MPI_Wait), one MPI_Allreduce, and
 * MPI_Comm_free. The profile, trace and check tests of tests/comms assert the
 * exact counts (tests/trace/expect.h writes them per rank), the messages
 * matched per communicator, and no finding.
 * With the argument "bug" (check mode), one erroneous exchange on c and one
 * on d show that the checks across ranks reach the new communicators.
 */
#include <string.h>

#include "../trace/expect.h"

enum { ROUNDS = 3, MSGS = 10, INTS = 16 };

static void traffic(MPI_Comm comm)
{
    int r, n;
    C(MPI_Comm_rank, comm, &r);
    C(MPI_Comm_size, comm, &n);
    int out[INTS], in[INTS];
    for (int i = 0; i < INTS; i++) out[i] = r * 100 + i;
    for (int m = 0; m < MSGS; m++) {
        MPI_Request q;
        C(MPI_Isend, out, INTS, MPI_INT, (r + 1) % n, m, comm, &q);
        C(MPI_Recv, in, INTS, MPI_INT, (r + n - 1) % n, m, comm, MPI_STATUS_IGNORE);
        C(MPI_Wait, &q, MPI_STATUS_IGNORE);
        CHECK(in[INTS - 1] == ((r + n - 1) % n) * 100 + INTS - 1);
    }
    int one = 1, sum = 0;
    C(MPI_Allreduce, &one, &sum, 1, MPI_INT, MPI_SUM, comm);
    CHECK(sum == n);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int bug = argc > 1 && strcmp(argv[1], "bug") == 0;
    int rank, size;
    C(MPI_Comm_rank, MPI_COMM_WORLD, &rank);
    C(MPI_Comm_size, MPI_COMM_WORLD, &size);
    CHECK(size >= 2);
    MPI_Info info;
    C(MPI_Info_create, &info);
    C(MPI_Info_set, info, "mpi_assert_no_any_tag", "false");
    for (int round = 0; round < ROUNDS; round++) {
        MPI_Comm a, b, c, d, e, split;
        MPI_Request r[2];
        MPI_Status st[2]; /* MPICH's MPI_STATUSES_IGNORE has a size of 0 for gcc's checks */
        int flag = 0, idx = -1;

        C(MPI_Comm_idup, MPI_COMM_WORLD, &a, &r[0]);
        C(MPI_Wait, &r[0], MPI_STATUS_IGNORE);

#if MPI_VERSION >= 4
        C(MPI_Comm_idup_with_info, MPI_COMM_WORLD, info, &b, &r[0]);
#else /* Open MPI 4.1 implements MPI-3.1 */
        C(MPI_Comm_idup, MPI_COMM_WORLD, &b, &r[0]);
#endif
        int token = round;
        if (rank == 0) {
            C(MPI_Wait, &r[0], MPI_STATUS_IGNORE);
            C(MPI_Send, &token, 1, MPI_INT, 1, 99, MPI_COMM_WORLD);
        } else if (rank == 1) {
            token = -1;
            C(MPI_Irecv, &token, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, &r[1]);
            C(MPI_Waitall, 2, r, st);
            CHECK(token == round);
        } else {
            C(MPI_Wait, &r[0], MPI_STATUS_IGNORE);
        }

        C(MPI_Comm_idup, a, &c, &r[0]);
        while (!flag) C(MPI_Test, &r[0], &flag, MPI_STATUS_IGNORE);

        C(MPI_Comm_split, MPI_COMM_WORLD, 0, size - rank, &split);
        r[1] = MPI_REQUEST_NULL;
        C(MPI_Comm_idup, split, &d, &r[0]);
        C(MPI_Waitany, 2, r, &idx, MPI_STATUS_IGNORE);
        CHECK(idx == 0);

        C(MPI_Comm_idup, b, &e, &r[0]);
        for (flag = 0; !flag;) C(MPI_Testall, 1, r, &flag, st);

        if (bug && round == 0) {
            /* Sent as MPI_INT, received as MPI_FLOAT, on a new communicator. */
            int cr, dr, v = 1, w = 0;
            C(MPI_Comm_rank, c, &cr);
            if (cr == 0) {
                int x[4] = {1, 2, 3, 4};
                C(MPI_Send, x, 4, MPI_INT, 1, 5, c); /* expect: GLOBAL:P2P:TYPE_MISMATCH rank=0 */
            } else if (cr == 1) {
                float x[4];
                C(MPI_Recv, x, 4, MPI_FLOAT, 0, 5, c, MPI_STATUS_IGNORE); /* expect: GLOBAL:P2P:TYPE_MISMATCH rank=1 */
            }
            /* One reduction, two operations, on another. */
            C(MPI_Comm_rank, d, &dr);
            C(MPI_Allreduce, &v, &w, 1, MPI_INT, dr == 0 ? MPI_SUM : MPI_MAX, d); /* expect: GLOBAL:COLLECTIVE:OP_MISMATCH */
        }

        MPI_Comm all[5] = {a, b, c, d, e};
        for (int i = 0; i < 5; i++) traffic(all[i]);
        for (int i = 0; i < 5; i++) C(MPI_Comm_free, &all[i]);
        C(MPI_Comm_free, &split);
    }
    C(MPI_Info_free, &info);
    expect_write(rank);
    MPI_Finalize();
    return 0;
}
