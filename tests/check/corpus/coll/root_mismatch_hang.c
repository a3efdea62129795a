/* MPI-3.1 section 5.9.1: every process must pass the same root to
 * MPI_Reduce. Erroneous: rank 0 passes 0 and rank 1 passes 1; each then
 * waits for the other's contribution and MPI hangs. The mismatch is found
 * at the call, and the two ranks waiting inside that mismatched instance
 * are a deadlock (not members of one collective making progress). Correct
 * twin: both pass 0. */
/* ENV: MPISCOPE_CHECK_TIMEOUT=5 */
/* TIMEOUT: 40 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, one = 1, sum = 0, root = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#ifdef BUG
    root = rank;
#endif
    MPI_Reduce(&one, &sum, 1, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD); /* EXPECT: GLOBAL:COLLECTIVE:ROOT_MISMATCH */ /* EXPECT: GLOBAL:DEADLOCK:HARD */
    MPI_Finalize();
    return 0;
}
