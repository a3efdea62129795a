/* One rank sends to itself: MPI_Isend, then the matching MPI_Recv. The
 * tool's own messages must not wait for a receive that comes later (MPICH
 * completes a send to self only when it is received: a blocking extra send
 * would hang here). The erroneous twin receives with the wrong type. */
/* NP: 1 */
/* TIMEOUT: 30 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, out[4] = {1, 2, 3, 4}, in[4];
    float fin[4];
    MPI_Request r;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 100; i++) {
        MPI_Isend(out, 4, MPI_INT, rank, 0, MPI_COMM_WORLD, &r);
#ifdef BUG
        if (i == 99)
            MPI_Recv(fin, 4, MPI_FLOAT, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* EXPECT: GLOBAL:P2P:TYPE_MISMATCH */
        else
#endif
        MPI_Recv(in, 4, MPI_INT, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    (void)fin;
    MPI_Finalize();
    return 0;
}
