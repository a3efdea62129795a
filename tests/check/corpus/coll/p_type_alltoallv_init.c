/* A persistent collective's per-block signatures (MPI-4.0 section 6.13:
 * MPI_Alltoallv_init takes the arguments of MPI_Alltoallv, 5.8: sendcounts[j],
 * sendtype at process i must match recvcounts[i], recvtype at process j).
 * Open MPI 4.1 has the persistent collectives only as MPIX_ in mpi-ext.h.
 * Erroneous: rank 1 sends floats, rank 0 receives ints (same size).
 * Correct twin: both ints. Started twice. */
/* ONLY: mpich */
/* TIMEOUT: 20 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int sbuf[8] = {0}, rbuf[8] = {0};
    int sc[2] = {4, 4}, rc[2] = {4, 4}, sd[2] = {0, 4}, rd[2] = {0, 4};
    MPI_Request r;
#ifdef BUG
    MPI_Alltoallv_init(sbuf, sc, sd, rank ? MPI_FLOAT : MPI_INT, rbuf, rc, rd, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &r); /* EXPECT: GLOBAL:COLLECTIVE:TYPE_MISMATCH */
#else
    MPI_Alltoallv_init(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
#endif
    for (int i = 0; i < 2; i++) {
        MPI_Start(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&r);
    MPI_Finalize();
    return 0;
}
