/* Both ranks receive first: a hard deadlock. */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, x = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int other = 1 - rank;
    MPI_Recv(&x, 1, MPI_INT, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: GLOBAL:DEADLOCK:HARD rank=0, GLOBAL:DEADLOCK:HARD rank=1 */
    MPI_Send(&x, 1, MPI_INT, other, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
