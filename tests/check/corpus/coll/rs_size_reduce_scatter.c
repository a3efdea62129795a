/* MPI_Reduce_scatter's counts. MPI-3.1 section 5.10.1: recvcounts must be
 * identical on all processes; block i (recvcounts[i] elements) of every
 * process's contribution goes to process i. Erroneous: rank 1 believes rank
 * 0's block has 2 elements, rank 0 expects 3 (rank 1 contributes fewer
 * elements than the sum rank 0 uses). Correct twin: both pass {3, 3}. */
/* TIMEOUT: 20 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int sbuf[6] = {1, 2, 3, 4, 5, 6}, rbuf[6] = {0};
    int rc[2] = {3, 3};
#ifdef BUG
    if (rank == 1) rc[0] = 2;
    MPI_Reduce_scatter(sbuf, rbuf, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* EXPECT: GLOBAL:COLLECTIVE:SIZE_MISMATCH */
#else
    MPI_Reduce_scatter(sbuf, rbuf, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
#endif
    MPI_Finalize();
    return 0;
}
