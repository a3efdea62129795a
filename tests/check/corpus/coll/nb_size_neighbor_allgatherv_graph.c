/* MPI_Neighbor_allgatherv on a distributed graph. MPI-3.1 sections 7.5.4 and
 * 7.7.1: each process sends sendcount elements to every destination and
 * receives recvcounts[k] from its k-th source; the block it sends must
 * match the one its destination expects from it. Graph: 0 -> 1, 1 -> 0,
 * 1 -> 1 (a self edge). Erroneous: rank 1 expects 4 ints from rank 0, which
 * sends 2 (less than posted: MPI does not fail). Correct twin: 2. */
/* TIMEOUT: 20 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int src0[1] = {1}, dst0[1] = {1};
    int src1[2] = {0, 1}, dst1[2] = {0, 1};
    MPI_Comm g;
    if (rank == 0)
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src0, MPI_UNWEIGHTED, 1, dst0,
                                       MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g);
    else
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src1, MPI_UNWEIGHTED, 2, dst1,
                                       MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g);
    int sbuf[4] = {0}, rbuf[16] = {0};
    int rc[2] = {2, 2}, rd[2] = {0, 8};
#ifdef BUG
    if (rank == 1) rc[0] = 4;
    MPI_Neighbor_allgatherv(sbuf, 2, MPI_INT, rbuf, rc, rd, MPI_INT, g); /* EXPECT: GLOBAL:COLLECTIVE:SIZE_MISMATCH */
#else
    MPI_Neighbor_allgatherv(sbuf, 2, MPI_INT, rbuf, rc, rd, MPI_INT, g);
#endif
    MPI_Comm_free(&g);
    MPI_Finalize();
    return 0;
}
