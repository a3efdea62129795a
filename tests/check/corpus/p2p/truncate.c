/* A receive smaller than the message: MPI_ERR_TRUNCATE, and under the
 * default handler MPI ends the job inside MPI_Recv. The finding is out first;
 * the exit code is the one of the run without the tool. */
/* RC: native */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf[8] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) MPI_Send(buf, 8, MPI_INT, 1, 0, MPI_COMM_WORLD);
#ifdef BUG
    if (rank == 1) MPI_Recv(buf, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* EXPECT: LOCAL:MPI_ERROR rank=1 */
#else
    if (rank == 1) MPI_Recv(buf, 8, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
#endif
    MPI_Finalize();
    return 0;
}
