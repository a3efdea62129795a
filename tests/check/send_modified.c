/* The buffer of a pending MPI_Isend is written before MPI_Wait. */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, buf[16] = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Request r;
        MPI_Isend(buf, 16, MPI_INT, 1, 0, MPI_COMM_WORLD, &r); /* expect: LOCAL:BUFFER:SEND_MODIFIED rank=0 */
        buf[3] = 42;
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Recv(buf, 16, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
