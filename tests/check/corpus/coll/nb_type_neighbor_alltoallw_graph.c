/* MPI_Neighbor_alltoallw on a graph topology (MPI_Graph_create). MPI-3.1
 * sections 7.5.3 and 7.7.1: block k of sendcounts/sendtypes goes to the k-th
 * neighbour, block k of recvcounts/recvtypes comes from it; each block
 * sent must match the block receiving it. Graph: 0 - 1 (each the other's
 * only neighbour). Erroneous: rank 1 sends 2 floats, rank 0 receives 2 ints
 * (same size: MPI does not notice). Correct twin: rank 0 receives floats. */
/* TIMEOUT: 20 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int index[2] = {1, 2}, edges[2] = {1, 0};
    MPI_Comm g;
    MPI_Graph_create(MPI_COMM_WORLD, 2, index, edges, 0, &g);
    int sbuf[4] = {0}, rbuf[4] = {0};
    int sc[1] = {2}, rc[1] = {2};
    MPI_Aint sd[1] = {0}, rd[1] = {0};
    MPI_Datatype st[1] = {rank == 1 ? MPI_FLOAT : MPI_INT}, rt[1] = {MPI_INT};
#ifdef BUG
    MPI_Neighbor_alltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, g); /* EXPECT: GLOBAL:COLLECTIVE:TYPE_MISMATCH */
#else
    if (rank == 0) rt[0] = MPI_FLOAT;
    MPI_Neighbor_alltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, g);
#endif
    MPI_Comm_free(&g);
    MPI_Finalize();
    return 0;
}
