/* MPI-3.1 section 5.5 (MPI_Gather): the type signature of sendcount,
 * sendtype on every process, the root included, must equal that of
 * recvcount, recvtype at the root. Erroneous: every rank sends one int and
 * agrees with the others, but the root expects two from each (the members'
 * blocks match the root's own send block, not its receive block). Correct
 * twin: the root expects one. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int mine = rank, all[16] = {0};
#ifdef BUG
    MPI_Gather(&mine, 1, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD); /* EXPECT: GLOBAL:COLLECTIVE:SIZE_MISMATCH rank=1 */
#else
    MPI_Gather(&mine, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
    MPI_Finalize();
    return 0;
}
