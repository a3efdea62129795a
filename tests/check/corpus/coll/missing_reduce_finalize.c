/* MPI-3.1 section 5.14: every member of the communicator must call a
 * collective, and a correct program must assume it may synchronize.
 * Erroneous: rank 0 skips MPI_Reduce and goes on to MPI_Finalize, where it
 * waits for rank 1, which waits in the reduction (the check's agreement
 * makes the first collectives synchronizing, which the standard allows).
 * The deadlock report names both calls with their lines, MPI_Finalize's
 * included. Correct twin: both ranks reduce. */
/* ENV: MPISCOPE_CHECK_TIMEOUT=5 */
/* TIMEOUT: 40 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, one = 1, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#ifdef BUG
    if (rank != 0)
#endif
        MPI_Reduce(&one, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD); /* EXPECT: GLOBAL:DEADLOCK:HARD rank=1 */
    MPI_Finalize(); /* EXPECT: GLOBAL:DEADLOCK:HARD rank=0 */
    return 0;
}
