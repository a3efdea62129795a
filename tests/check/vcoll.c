/* v-collectives whose blocks (counts and displacements per rank) run past
 * the buffer's heap block (issue 26): LOCAL:BUFFER:OVERFLOW at the call,
 * on the ranks where those blocks are significant. Two ranks.
 *   gatherv:    root 0 receives 4 ints at displacement 0 and 1 int at 9
 *               into a block of 9 ints (the root only);
 *   scatterv:   root 0 sends 4 ints at 0 and 4 at 8 from a block of 10;
 *   allgatherv: every rank receives 4 ints at 0 and 1 at 9 into a block
 *               of 9;
 *   alltoallv:  every rank sends 2 ints at 0 and 2 at 9 from a block of
 *               10 (its receive blocks fit);
 *   igatherv:   the nonblocking gatherv of the first case;
 *   negative:   root 0 scatters from 4 ints into a block of 10, with
 *               displacements -6 and 0 (the first block starts 2 ints
 *               before the block; the twin's -4 starts at its first byte);
 *   alltoallw:  byte displacements and a datatype per block: 2 ints at
 *               byte 0 and 1 double at byte 36 of a block of 40 (twin: 32);
 *   nbr_a2av:   MPI_Neighbor_alltoallv on a periodic 1-D Cartesian
 *               topology of 2 (2 neighbours, 2 blocks): 2 ints at 0 and 2
 *               at 3 of a block of 4 ints (twin: at 2);
 *   nbr_agv:    MPI_Neighbor_allgatherv receiving 2 ints at 0 and 2 at 3
 *               into a block of 4 ints (twin: at 2);
 *   nbr_a2aw:   MPI_Neighbor_alltoallw sending 1 int at byte 0 and 1 at
 *               byte 8 of a block of 8 bytes (twin: at 4);
 * each with a twin (<case>_ok) whose blocks fit: no finding. Where MPI
 * writes past the block (gatherv, allgatherv), 9 ints are 36 bytes and
 * glibc's chunk has 40 usable: the erroneous program does not overwrite
 * the allocator's data. Each case ends with a barrier.
 */
#include <stdlib.h>

#include "cases.h"

static void gatherv_case(int fit, int nonblocking)
{
    int mine[4] = {rank, rank, rank, rank}, counts[2] = {4, 1}, displs[2] = {0, fit ? 8 : 9};
    int *all = calloc(9, sizeof *all);
    if (nonblocking) {
        MPI_Request r;
        MPI_Igatherv(mine, rank == 0 ? 4 : 1, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD, &r); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0 */
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else {
        MPI_Gatherv(mine, rank == 0 ? 4 : 1, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0 */
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(all);
}

static void scatterv_case(int fit)
{
    int counts[2] = {4, 4}, displs[2] = {0, fit ? 6 : 8}, got[4];
    int *all = calloc(10, sizeof *all);
    MPI_Scatterv(all, counts, displs, MPI_INT, got, 4, MPI_INT, 0, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0 */
    MPI_Barrier(MPI_COMM_WORLD);
    free(all);
}

static void allgatherv_case(int fit)
{
    int mine[4] = {rank, rank, rank, rank}, counts[2] = {4, 1}, displs[2] = {0, fit ? 8 : 9};
    int *all = calloc(9, sizeof *all);
    MPI_Allgatherv(mine, rank == 0 ? 4 : 1, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0, LOCAL:BUFFER:OVERFLOW rank=1 */
    MPI_Barrier(MPI_COMM_WORLD);
    free(all);
}

static void alltoallv_case(int fit)
{
    int sc[2] = {2, 2}, sd[2] = {0, fit ? 8 : 9}, rc[2] = {2, 2}, rd[2] = {0, 2};
    int *s = calloc(10, sizeof *s), *r = calloc(4, sizeof *r);
    MPI_Alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0, LOCAL:BUFFER:OVERFLOW rank=1 */
    MPI_Barrier(MPI_COMM_WORLD);
    free(s);
    free(r);
}

static void negative_case(int fit)
{
    int counts[2] = {4, 4}, displs[2] = {fit ? -4 : -6, 0}, got[4];
    int *all = calloc(10, sizeof *all);
    MPI_Scatterv(all + 4, counts, displs, MPI_INT, got, 4, MPI_INT, 0, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0 */
    MPI_Barrier(MPI_COMM_WORLD);
    free(all);
}

static void alltoallw_case(int fit)
{
    /* Rank r receives what every rank sends as its block r: 2 ints to rank
     * 0, 1 double to rank 1. */
    int sc[2] = {2, 1}, sd[2] = {0, fit ? 32 : 36}, rc[2], rd[2] = {0, 8};
    MPI_Datatype st[2] = {MPI_INT, MPI_DOUBLE}, rt[2];
    for (int i = 0; i < 2; i++) rc[i] = rank == 0 ? 2 : 1, rt[i] = rank == 0 ? MPI_INT : MPI_DOUBLE;
    char *s = calloc(40, 1), *r = calloc(16, 1);
    MPI_Alltoallw(s, sc, sd, st, r, rc, rd, rt, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0, LOCAL:BUFFER:OVERFLOW rank=1 */
    MPI_Barrier(MPI_COMM_WORLD);
    free(s);
    free(r);
}

static MPI_Comm ring(void)
{
    int dims[1] = {2}, periods[1] = {1};
    MPI_Comm c;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &c);
    return c;
}

static void nbr_a2av_case(int fit)
{
    MPI_Comm c = ring();
    int sc[2] = {2, 2}, sd[2] = {0, fit ? 2 : 3}, rc[2] = {2, 2}, rd[2] = {0, 2};
    int *s = calloc(4, sizeof *s), *r = calloc(4, sizeof *r);
    MPI_Neighbor_alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, c); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0, LOCAL:BUFFER:OVERFLOW rank=1 */
    MPI_Comm_free(&c);
    free(s);
    free(r);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void nbr_agv_case(int fit)
{
    /* 4 ints are 16 bytes; glibc's chunk has 24 usable: MPI's 4 bytes
     * past the block stay in it. */
    MPI_Comm c = ring();
    int mine[2] = {rank, rank}, rc[2] = {2, 2}, rd[2] = {0, fit ? 2 : 3};
    int *r = calloc(4, sizeof *r);
    MPI_Neighbor_allgatherv(mine, 2, MPI_INT, r, rc, rd, MPI_INT, c); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0, LOCAL:BUFFER:OVERFLOW rank=1 */
    MPI_Comm_free(&c);
    free(r);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void nbr_a2aw_case(int fit)
{
    MPI_Comm c = ring();
    int sc[2] = {1, 1}, rc[2] = {1, 1};
    MPI_Aint sd[2] = {0, fit ? 4 : 8}, rd[2] = {0, 4};
    MPI_Datatype t[2] = {MPI_INT, MPI_INT};
    char *s = calloc(8, 1), *r = calloc(8, 1);
    MPI_Neighbor_alltoallw(s, sc, sd, t, r, rc, rd, t, c); /* expect(all): LOCAL:BUFFER:OVERFLOW rank=0, LOCAL:BUFFER:OVERFLOW rank=1 */
    MPI_Comm_free(&c);
    free(s);
    free(r);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void all_bad(void)
{
    gatherv_case(0, 0), scatterv_case(0), allgatherv_case(0), alltoallv_case(0);
    gatherv_case(0, 1);
    negative_case(0), alltoallw_case(0), nbr_a2av_case(0), nbr_agv_case(0), nbr_a2aw_case(0);
}
static void all_ok(void)
{
    gatherv_case(1, 0), scatterv_case(1), allgatherv_case(1), alltoallv_case(1);
    gatherv_case(1, 1);
    negative_case(1), alltoallw_case(1), nbr_a2av_case(1), nbr_agv_case(1), nbr_a2aw_case(1);
}

int main(int argc, char **argv)
{
    static const chk_case_t cases[] = {{"all", all_bad}, {"all_ok", all_ok}};
    return case_main(argc, argv, cases, sizeof cases / sizeof *cases);
}
