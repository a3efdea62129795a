/* Rank 0 sends a message that rank 1 never receives. */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, x = 5;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) MPI_Send(&x, 1, MPI_INT, 1, 3, MPI_COMM_WORLD); /* expect: LOCAL:FINALIZE:UNRECEIVED_MESSAGE rank=0 */
    MPI_Finalize();
    return 0;
}
