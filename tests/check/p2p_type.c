/* Four ints sent, four floats received. */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, ibuf[4] = {1, 2, 3, 4};
    float fbuf[4];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Send(ibuf, 4, MPI_INT, 1, 7, MPI_COMM_WORLD); /* expect: GLOBAL:P2P:TYPE_MISMATCH rank=0 */
    else if (rank == 1)
        MPI_Recv(fbuf, 4, MPI_FLOAT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: GLOBAL:P2P:TYPE_MISMATCH rank=1 */
    MPI_Finalize();
    return 0;
}
