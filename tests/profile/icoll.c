/* Nonblocking, persistent and neighbourhood collectives, each with sizes of
 * its own, so that check.py (test "icoll") can derive every byte, histogram
 * bin and matrix cell from what the calls must move:
 *
 *   MPI_Ibcast     100 doubles from rank 0
 *   MPI_Iallreduce 10 ints
 *   MPI_Ialltoall  3 ints to every rank
 *   MPI_Igatherv   rank r sends r+1 ints to rank 1 % n
 *   MPI_Allreduce_init  16 doubles, started 3 times (MPI-4: MPICH only)
 *   MPI_Bcast_init      5 ints from rank n-1, started twice by MPI_Startall
 *   on a periodic ring (1-D Cartesian, neighbours left then right):
 *     MPI_Neighbor_allgather   2 ints to each neighbour
 *     MPI_Neighbor_alltoallv   r+1 ints to each neighbour, through the counts
 *       array (the same on both sides: with 2 ranks both neighbours are one
 *       process, and the MPIs pair its two blocks in different ways)
 *   on a non-periodic line: MPI_Neighbor_alltoall 1 int per real neighbour
 *   on a distributed graph (r sends to r+1, receives from r-1):
 *     MPI_Ineighbor_allgather  3 doubles
 *     MPI_Neighbor_allgather_init  1 int, started once (MPICH only)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(x) do { if ((x) != MPI_SUCCESS) { fprintf(stderr, "%s failed\n", #x); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Request q[2];
    double d[128] = {0}, d2[128];
    int i1[64] = {0}, i2[64];

    MPI_Ibcast(d, 100, MPI_DOUBLE, 0, w, &q[0]); /* SITE:ibcast */
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    MPI_Iallreduce(i1, i2, 10, MPI_INT, MPI_SUM, w, &q[0]); /* SITE:iallreduce */
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    MPI_Ialltoall(i1, 3, MPI_INT, i2, 3, MPI_INT, w, &q[0]); /* SITE:ialltoall */
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    int *counts = malloc((size_t)n * sizeof *counts), *displs = malloc((size_t)n * sizeof *displs);
    int *gbuf = calloc((size_t)n * (n + 1), sizeof *gbuf);
    for (int i = 0, o = 0; i < n; o += i + 1, i++) counts[i] = i + 1, displs[i] = o;
    MPI_Igatherv(i1, r + 1, MPI_INT, gbuf, counts, displs, MPI_INT, 1 % n, w, &q[0]); /* SITE:igatherv */
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);

#if MPI_VERSION >= 4
    MPI_Request pa, pb;
    CHECK(MPI_Allreduce_init(d, d2, 16, MPI_DOUBLE, MPI_SUM, w, MPI_INFO_NULL, &pa)); /* SITE:allreduce_init */
    for (int k = 0; k < 3; k++) {
        MPI_Start(&pa);
        MPI_Wait(&pa, MPI_STATUS_IGNORE);
    }
    CHECK(MPI_Bcast_init(i1, 5, MPI_INT, n - 1, w, MPI_INFO_NULL, &pb)); /* SITE:bcast_init */
    MPI_Status st[1];
    for (int k = 0; k < 2; k++) {
        MPI_Startall(1, &pb);
        MPI_Waitall(1, &pb, st);
    }
    MPI_Request_free(&pa);
    MPI_Request_free(&pb);
#endif

    /* A periodic ring: neighbours (left, right). */
    MPI_Comm ring, line, graph;
    int dims[1] = {n}, periodic[1] = {1}, open[1] = {0};
    CHECK(MPI_Cart_create(w, 1, dims, periodic, 0, &ring));
    MPI_Neighbor_allgather(i1, 2, MPI_INT, i2, 2, MPI_INT, ring); /* SITE:nallgather */
    int left = (r + n - 1) % n, right = (r + 1) % n;
    int sc[2] = {r + 1, r + 1}, sd[2] = {0, 32}, rc[2] = {left + 1, right + 1}, rd[2] = {0, 32};
    MPI_Neighbor_alltoallv(i1, sc, sd, MPI_INT, i2, rc, rd, MPI_INT, ring); /* SITE:nalltoallv */
    /* A line: the ends have MPI_PROC_NULL on one side. */
    CHECK(MPI_Cart_create(w, 1, dims, open, 0, &line));
    MPI_Neighbor_alltoall(i1, 1, MPI_INT, i2, 1, MPI_INT, line); /* SITE:nalltoall */
    /* A directed ring as a distributed graph. */
    int src = left, dst = right, weight[1] = {1};
    CHECK(MPI_Dist_graph_create_adjacent(w, 1, &src, weight, 1, &dst, weight, MPI_INFO_NULL, 0,
                                         &graph));
    MPI_Ineighbor_allgather(d, 3, MPI_DOUBLE, d2, 3, MPI_DOUBLE, graph, &q[0]); /* SITE:inallgather */
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
#if MPI_VERSION >= 4
    MPI_Request pn;
    CHECK(MPI_Neighbor_allgather_init(i1, 1, MPI_INT, i2, 1, MPI_INT, graph, MPI_INFO_NULL, &pn)); /* SITE:nallgather_init */
    MPI_Start(&pn);
    MPI_Wait(&pn, MPI_STATUS_IGNORE);
    MPI_Request_free(&pn);
#endif
    MPI_Comm_free(&ring);
    MPI_Comm_free(&line);
    MPI_Comm_free(&graph);
    free(counts);
    free(displs);
    free(gbuf);
    MPI_Finalize();
    return 0;
}
