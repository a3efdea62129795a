/* Rank 1 returns from main without MPI_Finalize; the exit handler reports
 * it at the rank's last MPI call. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#ifdef BUG
    if (rank == 1) {
        MPI_Barrier(MPI_COMM_SELF); /* EXPECT: LOCAL:CALL:NO_FINALIZE rank=1 */
        return 0;
    }
#endif
    MPI_Finalize();
    return 0;
}
