/* Collectives whose arguments differ between the ranks, each completing
 * despite the error (2 ranks, small messages). */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, x = 1, y = 0;
    float fx = 1, fy = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&x, &y, 1, MPI_INT, rank == 0 ? MPI_SUM : MPI_MAX, MPI_COMM_WORLD); /* expect: GLOBAL:COLLECTIVE:OP_MISMATCH rank=0, GLOBAL:COLLECTIVE:OP_MISMATCH rank=1 */
    if (rank == 0)
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* expect: GLOBAL:COLLECTIVE:TYPE_MISMATCH rank=0 */
    else
        MPI_Allreduce(&fx, &fy, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); /* expect: GLOBAL:COLLECTIVE:TYPE_MISMATCH rank=1 */
    MPI_Barrier(MPI_COMM_WORLD);
    /* Past the first 64 collectives of a communicator, descriptors are logged
     * and compared every 64 blocking collectives and at MPI_Finalize: the
     * mismatch is still found, with its own line. */
    for (int i = 0; i < 70; i++) MPI_Barrier(MPI_COMM_WORLD);
    MPI_Allreduce(&x, &y, 1, MPI_INT, rank == 0 ? MPI_MIN : MPI_MAX, MPI_COMM_WORLD); /* expect: GLOBAL:COLLECTIVE:OP_MISMATCH rank=0, GLOBAL:COLLECTIVE:OP_MISMATCH rank=1 */
    MPI_Finalize();
    return 0;
}
