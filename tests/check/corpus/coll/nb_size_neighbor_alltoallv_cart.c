/* MPI_Neighbor_alltoallv on a Cartesian topology. MPI-3.1 sections 7.6 and
 * 7.7.1: in dimension d, send block 2d goes to the neighbour below and
 * block 2d+1 to the one above; receive block 2d comes from below (that
 * neighbour's block 2d+1), 2d+1 from above. Each block sent must match the
 * block that receives it. A periodic ring of 2: both neighbours are the
 * other rank. Erroneous: rank 0 sends 2 ints upwards (block 1), which rank 1
 * receives from below (its block 0) expecting 3. Correct twin: 3. */
/* TIMEOUT: 20 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int dims[1] = {size}, periods[1] = {1};
    MPI_Comm ring;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    MPI_Comm_rank(ring, &rank);
    int sbuf[8] = {0}, rbuf[8] = {0};
    int sc[2] = {3, 3}, rc[2] = {3, 3}, sd[2] = {0, 4}, rd[2] = {0, 4};
#ifdef BUG
    if (rank == 0) sc[1] = 2;
    MPI_Neighbor_alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, ring); /* EXPECT: GLOBAL:COLLECTIVE:SIZE_MISMATCH */
#else
    MPI_Neighbor_alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, ring);
#endif
    MPI_Comm_free(&ring);
    MPI_Finalize();
    return 0;
}
