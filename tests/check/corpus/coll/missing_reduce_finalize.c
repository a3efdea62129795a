/* MPI-3.1 section 5.14: every member of the communicator must call a
 * collective. Erroneous: rank 0 skips MPI_Reduce and goes on to
 * MPI_Finalize; rank 1's reduction (not the root: it only sends) may
 * return, and the program may end. The tool's comparison at MPI_Finalize
 * meets rank 1's agreement before its MPI_Reduce: a call mismatch, named
 * at both calls ("calls no further collective" at rank 0's MPI_Finalize).
 * Before issue 24 the agreement made the reduction wait for rank 0, and
 * the run was reported as a deadlock. Correct twin: both ranks reduce. */
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
        MPI_Reduce(&one, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD); /* EXPECT: GLOBAL:COLLECTIVE:CALL_MISMATCH rank=1 */
    MPI_Finalize(); /* EXPECT: GLOBAL:COLLECTIVE:CALL_MISMATCH rank=0 */
    return 0;
}
