/* MPI-3.1 section 5.5 (MPI_Gather): the root's own contribution counts
 * too: its sendcount, sendtype must match its recvcount, recvtype. The
 * other ranks send two floats, as the root expects. Erroneous: the root
 * sends itself one float. Correct twin: two. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    float mine[2] = {0}, all[32] = {0};
    int n = 2;
#ifdef BUG
    if (rank == 0) n = 1;
#endif
    MPI_Gather(mine, n, MPI_FLOAT, all, 2, MPI_FLOAT, 0, MPI_COMM_WORLD); /* EXPECT: GLOBAL:COLLECTIVE:SIZE_MISMATCH rank=0 */
    MPI_Finalize();
    return 0;
}
