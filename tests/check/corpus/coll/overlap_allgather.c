/* MPI-3.1 section 2.3 (an OUT argument cannot be aliased with any other
 * argument) and 5.7 (MPI_Allgather): each rank's send block and the
 * receive buffer may share memory only through MPI_IN_PLACE. Erroneous:
 * every rank sends its own slot of the receive buffer, passed as a
 * separate send buffer (the usual way to keep one array). Correct twin:
 * the same with MPI_IN_PLACE. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int all[16] = {0};
    all[rank] = rank + 1;
#ifdef BUG
    MPI_Allgather(&all[rank], 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD); /* EXPECT: LOCAL:BUFFER:OVERLAP rank=1 */
#else
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 1, MPI_INT, MPI_COMM_WORLD);
#endif
    int ok = 1;
    for (int i = 0; i < size && i < 16; i++) ok &= all[i] == i + 1;
    MPI_Finalize();
    return ok ? 0 : 1;
}
