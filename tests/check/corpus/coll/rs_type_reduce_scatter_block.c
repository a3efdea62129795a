/* MPI_Reduce_scatter_block's datatype. MPI-3.1 section 5.10.2: recvcount
 * and datatype describe the same block on every process. Erroneous: rank 1
 * passes MPI_FLOAT where rank 0 passes MPI_INT (same size). Correct twin:
 * both MPI_INT. */
/* TIMEOUT: 20 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int sbuf[4] = {1, 2, 3, 4}, rbuf[2] = {0};
#ifdef BUG
    MPI_Reduce_scatter_block(sbuf, rbuf, 2, rank ? MPI_FLOAT : MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* EXPECT: GLOBAL:COLLECTIVE:TYPE_MISMATCH */
#else
    MPI_Reduce_scatter_block(sbuf, rbuf, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
#endif
    MPI_Finalize();
    return 0;
}
