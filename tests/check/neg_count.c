/* A negative count in MPI_Send: LOCAL:ARG:NEGATIVE_COUNT on rank 0. */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, buf[4] = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rank == 0) MPI_Send(buf, -1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD); /* expect: LOCAL:ARG:NEGATIVE_COUNT rank=0, LOCAL:CALL:FAILED rank=0 */
    MPI_Finalize();
    return 0;
}
