/* Point-to-point on mismatched communicators or tags (issue 25 item 4): the
 * send completes (MPI buffers the small message) and the receive that was
 * meant to take it waits for ever. The deadlock is reported, and so is its
 * cause, as a finding of its own whose text names both communicators (or
 * both tags): GLOBAL:P2P:COMM_MISMATCH or GLOBAL:P2P:TAG_MISMATCH, at the
 * receive (rank 1) and at the call the sender waits in (rank 0: a barrier).
 *   comm:   rank 0 sends on MPI_COMM_WORLD, rank 1 receives on a duplicate;
 *   tag:    tag 3 sent, tag 4 received, one communicator;
 *   irecv:  as comm, through MPI_Irecv and MPI_Wait on a split;
 *   ssend:  as comm, with MPI_Ssend, which blocks too (so would a send too
 *           large to buffer): the cause is the send under way;
 * each with a twin (<case>_ok) whose send and receive agree: no finding.
 * Two ranks (cases.h runs the case named by the first argument).
 */
#include "cases.h"

static void comm_case(int agree)
{
    MPI_Comm dup;
    int v = 7;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    if (rank == 0) {
        MPI_Send(&v, 1, MPI_INT, 1, 3, agree ? dup : MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD); /* expect(comm): GLOBAL:DEADLOCK:HARD rank=0, GLOBAL:P2P:COMM_MISMATCH rank=0 */
    } else if (rank == 1) {
        MPI_Recv(&v, 1, MPI_INT, 0, 3, dup, MPI_STATUS_IGNORE); /* expect(comm): GLOBAL:DEADLOCK:HARD rank=1, GLOBAL:P2P:COMM_MISMATCH rank=1 */
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Comm_free(&dup);
}

static void tag_case(int agree)
{
    int v = 7;
    if (rank == 0) {
        MPI_Send(&v, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD); /* expect(tag): GLOBAL:DEADLOCK:HARD rank=0, GLOBAL:P2P:TAG_MISMATCH rank=0 */
    } else if (rank == 1) {
        MPI_Recv(&v, 1, MPI_INT, 0, agree ? 3 : 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect(tag): GLOBAL:DEADLOCK:HARD rank=1, GLOBAL:P2P:TAG_MISMATCH rank=1 */
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

static void irecv_case(int agree)
{
    MPI_Comm half;
    MPI_Request r;
    int v = 7;
    MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &half);
    if (rank == 0) {
        MPI_Send(&v, 1, MPI_INT, 1, 5, agree ? half : MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD); /* expect(irecv): GLOBAL:DEADLOCK:HARD rank=0, GLOBAL:P2P:COMM_MISMATCH rank=0 */
    } else if (rank == 1) {
        MPI_Irecv(&v, 1, MPI_INT, 0, 5, half, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE); /* expect(irecv): GLOBAL:DEADLOCK:HARD rank=1, GLOBAL:P2P:COMM_MISMATCH rank=1 */
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Comm_free(&half);
}

static void ssend_case(int agree)
{
    MPI_Comm dup;
    int v = 7;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    if (rank == 0) {
        MPI_Ssend(&v, 1, MPI_INT, 1, 3, agree ? dup : MPI_COMM_WORLD); /* expect(ssend): GLOBAL:DEADLOCK:HARD rank=0, GLOBAL:P2P:COMM_MISMATCH rank=0 */
    } else if (rank == 1) {
        MPI_Recv(&v, 1, MPI_INT, 0, 3, dup, MPI_STATUS_IGNORE); /* expect(ssend): GLOBAL:DEADLOCK:HARD rank=1, GLOBAL:P2P:COMM_MISMATCH rank=1 */
    }
    MPI_Comm_free(&dup);
}

static void comm_bad(void) { comm_case(0); }
static void comm_ok(void) { comm_case(1); }
static void tag_bad(void) { tag_case(0); }
static void tag_ok(void) { tag_case(1); }
static void irecv_bad(void) { irecv_case(0); }
static void irecv_ok(void) { irecv_case(1); }
static void ssend_bad(void) { ssend_case(0); }
static void ssend_ok(void) { ssend_case(1); }

int main(int argc, char **argv)
{
    static const chk_case_t cases[] = {{"comm", comm_bad},   {"comm_ok", comm_ok},
                                       {"tag", tag_bad},     {"tag_ok", tag_ok},
                                       {"irecv", irecv_bad}, {"irecv_ok", irecv_ok},
                                       {"ssend", ssend_bad}, {"ssend_ok", ssend_ok}};
    return case_main(argc, argv, cases, sizeof cases / sizeof *cases);
}
