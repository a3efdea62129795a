/* MPI_Ineighbor_alltoallv on a non-periodic Cartesian line of 2. MPI-3.1
 * sections 7.6 and 7.7.2: block 2d goes to the neighbour below, 2d+1 to the
 * one above (MPI_PROC_NULL at the ends: nothing moves); the block sent must
 * match the block receiving it. Erroneous: rank 0 sends floats upwards,
 * rank 1 receives ints from below (same size). Correct twin: both ints. */
/* TIMEOUT: 20 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int dims[1] = {size}, periods[1] = {0};
    MPI_Comm line;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &line);
    MPI_Comm_rank(line, &rank);
    int sbuf[8] = {0}, rbuf[8] = {0};
    int sc[2] = {2, 2}, rc[2] = {2, 2}, sd[2] = {0, 4}, rd[2] = {0, 4};
    MPI_Request r;
#ifdef BUG
    MPI_Ineighbor_alltoallv(sbuf, sc, sd, rank == 0 ? MPI_FLOAT : MPI_INT, rbuf, rc, rd, MPI_INT, line, &r); /* EXPECT: GLOBAL:COLLECTIVE:TYPE_MISMATCH */
#else
    MPI_Ineighbor_alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, line, &r);
#endif
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Comm_free(&line);
    MPI_Finalize();
    return 0;
}
