/* MPI-3.1 section 2.3 (an OUT argument cannot be aliased with any other
 * argument) and 5.9.1 (MPI_Reduce): at the root the send and receive
 * buffers may share memory only through MPI_IN_PLACE. Erroneous: the root
 * reduces four ints from buf into buf + 1, which overlaps them (MPICH
 * aborts in its copy; the finding must be out first). At the other ranks
 * the receive buffer is not significant, so only the root is reported.
 * Correct twin: the result goes to buf + 4. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int buf[8] = {1, 2, 3, 4, 0, 0, 0, 0};
#ifdef BUG
    MPI_Reduce(buf, buf + 1, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD); /* EXPECT: LOCAL:BUFFER:OVERLAP rank=0 */
#else
    MPI_Reduce(buf, rank == 0 ? buf + 4 : buf + 1, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
#endif
    MPI_Finalize();
    return 0;
}
