/* commfree: communicators freed while operations on them are pending, as
 * MPICH's comm/cmfree2 does (legal: MPI_Comm_free only marks the
 * communicator for deallocation). 2 ranks, 3 rounds of:
 *   both ranks duplicate MPI_COMM_WORLD into c1; rank 0 posts an MPI_Irecv
 *   and rank 1 an MPI_Isend (64 KiB, so that it cannot complete inline) on
 *   c1; both free c1; both create c2 by MPI_Comm_split in reverse order
 *   (the MPI may hand out c1's handle again); then both complete their
 *   request, and exchange one message on c2.
 * check_trace.py then asserts that each send matches one receive on the same
 * communicator (the freed one for the first message), and that every
 * request completed exactly once.
 */
#include <stdlib.h>

#include "expect.h"

enum { N = 16384 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    C(MPI_Comm_rank, MPI_COMM_WORLD, &rank);
    C(MPI_Comm_size, MPI_COMM_WORLD, &size);
    CHECK(size == 2);
    int *buf = calloc(N, sizeof *buf);
    CHECK(buf);
    for (int round = 0; round < 3; round++) {
        MPI_Comm c1, c2;
        MPI_Request req;
        C(MPI_Comm_dup, MPI_COMM_WORLD, &c1);
        if (rank == 0) {
            C(MPI_Irecv, buf, N, MPI_INT, 1, 7, c1, &req);
        } else {
            for (int i = 0; i < N; i++) buf[i] = round * N + i;
            C(MPI_Isend, buf, N, MPI_INT, 0, 7, c1, &req);
        }
        C(MPI_Comm_free, &c1);
        C(MPI_Comm_split, MPI_COMM_WORLD, 0, -rank, &c2);
        MPI_Status st;
        C(MPI_Wait, &req, &st);
        if (rank == 0) {
            CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == 7);
            for (int i = 0; i < N; i++) CHECK(buf[i] == round * N + i);
        }
        int x = rank, y = -1, peer;
        C(MPI_Comm_rank, c2, &peer);
        peer = 1 - peer;
        C(MPI_Sendrecv, &x, 1, MPI_INT, peer, 8, &y, 1, MPI_INT, peer, 8, c2, MPI_STATUS_IGNORE);
        CHECK(y == 1 - rank);
        C(MPI_Comm_free, &c2);
    }
    free(buf);
    C(MPI_Barrier, MPI_COMM_WORLD);
    expect_write(rank);
    MPI_Finalize();
    return 0;
}
