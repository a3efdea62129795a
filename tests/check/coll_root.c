/* Every rank names a different root of MPI_Bcast (each then sends, none receives: small messages complete). */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, x = 1, y = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Bcast(&x, 1, MPI_INT, rank, MPI_COMM_WORLD); /* expect: GLOBAL:COLLECTIVE:ROOT_MISMATCH rank=0, GLOBAL:COLLECTIVE:ROOT_MISMATCH rank=1 */
    MPI_Finalize();
    return 0;
}
