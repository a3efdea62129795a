/* A persistent collective's block signature (MPI-4.0 section 6.13:
 * MPI_Allgather_init takes the arguments of MPI_Allgather, 5.7: the block
 * each process sends must match recvcount, recvtype at every process).
 * Open MPI 4.1 has the persistent collectives only as MPIX_ in mpi-ext.h.
 * Erroneous: rank 1 sends 1 int where 2 are expected (less than posted).
 * Correct twin: 2. */
/* ONLY: mpich */
/* TIMEOUT: 20 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int sbuf[2] = {0}, rbuf[4] = {0};
    MPI_Request r;
#ifdef BUG
    MPI_Allgather_init(sbuf, rank ? 1 : 2, MPI_INT, rbuf, 2, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &r); /* EXPECT: GLOBAL:COLLECTIVE:SIZE_MISMATCH */
#else
    MPI_Allgather_init(sbuf, 2, MPI_INT, rbuf, 2, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
#endif
    MPI_Start(&r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Request_free(&r);
    MPI_Finalize();
    return 0;
}
