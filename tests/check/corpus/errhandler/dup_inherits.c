/* A communicator made from MPI_COMM_WORLD inherits its handler, fatal by
 * default: an error on it ends the job, after the finding. */
/* RC: native */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf[4] = {0};
    MPI_Comm split;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &split);
    if (rank == 0) MPI_Send(buf, 4, MPI_INT, 1, 7, split);
#ifdef BUG
    if (rank == 1) MPI_Recv(buf, 2, MPI_INT, 0, 7, split, MPI_STATUS_IGNORE); /* EXPECT: LOCAL:MPI_ERROR rank=1 */
#else
    if (rank == 1) MPI_Recv(buf, 4, MPI_INT, 0, 7, split, MPI_STATUS_IGNORE);
#endif
    MPI_Comm_free(&split);
    MPI_Finalize();
    return 0;
}
