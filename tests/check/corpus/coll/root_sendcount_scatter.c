/* MPI-3.1 section 5.6 (MPI_Scatter): the type signature of sendcount,
 * sendtype at the root must equal that of recvcount, recvtype on every
 * process, the root included. Erroneous: the root sends two ints to each
 * rank, every rank (the root too) receives one, so the members' blocks
 * match the root's receive block but not the block it sends. Correct twin:
 * the root sends one. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int all[16] = {0}, mine[2] = {0};
#ifdef BUG
    MPI_Scatter(all, 2, MPI_INT, mine, 1, MPI_INT, 0, MPI_COMM_WORLD); /* EXPECT: GLOBAL:COLLECTIVE:SIZE_MISMATCH rank=1 */
#else
    MPI_Scatter(all, 1, MPI_INT, mine, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
    MPI_Finalize();
    return 0;
}
