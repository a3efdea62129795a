/* Both ranks send first: completes only because MPI buffers small
 * standard-mode sends. With MPISCOPE_CHECK_SYNC_SENDS=1 the checks expose it. */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, x = 1, y = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int other = 1 - rank;
    MPI_Send(&x, 1, MPI_INT, other, 0, MPI_COMM_WORLD); /* expect: GLOBAL:DEADLOCK:POTENTIAL rank=0, GLOBAL:DEADLOCK:POTENTIAL rank=1 */
    MPI_Recv(&y, 1, MPI_INT, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
