/* MPI-3.1 section 2.3 (an OUT argument cannot be aliased with any other
 * argument) and 5.5 (MPI_Gather): the root's send buffer may not lie in its
 * receive buffer; MPI_IN_PLACE says its block is already in place.
 * Erroneous: the root sends from its own slot of the receive buffer.
 * The other ranks' receive buffers are not significant: only the root is
 * reported. Correct twin: the root passes MPI_IN_PLACE. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double all[16] = {0}, mine = rank + 0.5;
    if (rank == 0) all[0] = mine;
#ifdef BUG
    MPI_Gather(rank == 0 ? &all[0] : &mine, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD); /* EXPECT: LOCAL:BUFFER:OVERLAP rank=0 */
#else
    MPI_Gather(rank == 0 ? MPI_IN_PLACE : (void *)&mine, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0,
               MPI_COMM_WORLD);
#endif
    int ok = 1;
    if (rank == 0)
        for (int i = 0; i < size && i < 16; i++) ok &= all[i] == i + 0.5;
    MPI_Finalize();
    return ok ? 0 : 1;
}
