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

static void all_bad(void)
{
    gatherv_case(0, 0), scatterv_case(0), allgatherv_case(0), alltoallv_case(0);
    gatherv_case(0, 1);
}
static void all_ok(void)
{
    gatherv_case(1, 0), scatterv_case(1), allgatherv_case(1), alltoallv_case(1);
    gatherv_case(1, 1);
}

int main(int argc, char **argv)
{
    static const chk_case_t cases[] = {{"all", all_bad}, {"all_ok", all_ok}};
    return case_main(argc, argv, cases, sizeof cases / sizeof *cases);
}
