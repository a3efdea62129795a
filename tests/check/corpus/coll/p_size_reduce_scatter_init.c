/* A persistent MPI_Reduce_scatter (MPI-4.0 section 6.13; 5.10.1: recvcounts
 * must be identical on all processes). Erroneous: rank 1 passes {3, 1},
 * rank 0 {3, 3} (rank 1 believes its own block has 1 element; rank 0
 * sends it 3). Correct twin: both {3, 3}. */
/* ONLY: mpich */
/* TIMEOUT: 20 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int sbuf[6] = {1, 2, 3, 4, 5, 6}, rbuf[6] = {0};
    int rc[2] = {3, 3};
    MPI_Request r;
#ifdef BUG
    if (rank == 1) rc[1] = 1;
    MPI_Reduce_scatter_init(sbuf, rbuf, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r); /* EXPECT: GLOBAL:COLLECTIVE:SIZE_MISMATCH */
    MPI_Request_free(&r); /* not started: the counts disagree */
#else
    MPI_Reduce_scatter_init(sbuf, rbuf, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    MPI_Start(&r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Request_free(&r);
#endif
    MPI_Finalize();
    return 0;
}
