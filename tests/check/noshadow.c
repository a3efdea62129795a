/* Communicators without a shadow: run with MPISCOPE_CHECK_SHADOWS=3 on 2
 * ranks, so that check mode's budget holds the shadows of MPI_COMM_WORLD,
 * MPI_COMM_SELF and of `a`, and none is left for `b`, the intercommunicator
 * and the windows. Everything that uses a shadow elsewhere is done on them:
 * messages (with the tags of the tool's own traffic), collectives, a
 * window's fences, an intercommunicator and its merge, a receive still
 * pending when its communicator is freed. None may hang or give a finding; the type mismatch on `b` goes unseen (its check
 * needs the shadow), the same one on `a`, and on `e` made once `a` is
 * freed, is found. Rank 0 prints what the calls computed. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, ibuf[4] = {1, 2, 3, 4}, v, sum, *ub, flag;
    float fbuf[4];
    MPI_Comm a, b, e, half, ic, merged;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    int other = 1 - rank;
    MPI_Comm_dup(MPI_COMM_WORLD, &a); /* the last shadow of the budget */
    MPI_Comm_dup(MPI_COMM_WORLD, &b); /* none */

    if (rank == 0)
        MPI_Send(ibuf, 4, MPI_INT, 1, 0, a); /* expect: GLOBAL:P2P:TYPE_MISMATCH rank=0 */
    else
        MPI_Recv(fbuf, 4, MPI_FLOAT, 0, 0, a, MPI_STATUS_IGNORE); /* expect: GLOBAL:P2P:TYPE_MISMATCH rank=1 */
    /* Not checked: b has no shadow. */
    if (rank == 0)
        MPI_Send(ibuf, 4, MPI_INT, 1, 0, b);
    else
        MPI_Recv(fbuf, 4, MPI_FLOAT, 0, 0, b, MPI_STATUS_IGNORE);

    /* Messages on b with the tags the tool's own traffic uses elsewhere. */
    int tags[3] = {0, 1, *ub}, got[3] = {-1, -1, -1};
    for (int i = 0; i < 3; i++)
        MPI_Sendrecv(&tags[i], 1, MPI_INT, other, tags[i], &got[i], 1, MPI_INT, other, tags[i], b,
                     MPI_STATUS_IGNORE);
    /* Collectives on b, blocking and not. */
    v = rank + 1;
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, b);
    MPI_Bcast(&v, 1, MPI_INT, 1, b);
    MPI_Request r;
    MPI_Ibarrier(b, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    if (rank == 0)
        printf("b: tags %d %d %s, sum %d, bcast %d\n", got[0], got[1],
               got[2] == *ub ? "ub" : "wrong", sum, v);

    /* A window on b: fences and a put (its value is not printed: MPICH
     * 4.0.2 here leaves it unchanged even without the tool). */
    int slot = -1;
    MPI_Win w;
    MPI_Win_create(&slot, sizeof slot, sizeof slot, MPI_INFO_NULL, b, &w);
    MPI_Win_fence(0, w);
    MPI_Put(&rank, 1, MPI_INT, other, 0, 1, MPI_INT, w);
    MPI_Win_fence(0, w);
    MPI_Win_free(&w);

    /* An intercommunicator between the two ranks, and its merge. */
    MPI_Comm_split(b, rank, 0, &half);
    MPI_Intercomm_create(half, 0, b, other, 5, &ic);
    int x = 10 + rank, y = -1;
    MPI_Sendrecv(&x, 1, MPI_INT, 0, 3, &y, 1, MPI_INT, 0, 3, ic, MPI_STATUS_IGNORE);
    MPI_Intercomm_merge(ic, rank, &merged);
    MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, merged);
    if (rank == 0) printf("intercommunicator: %d, merged sum %d\n", y, sum);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&half);

    /* A receive pending when its communicator is freed (reference counts,
     * as MPICH's cmfree): the message comes after the free. */
    int in = -1;
    if (rank == 1) {
        MPI_Irecv(&in, 1, MPI_INT, 0, 9, b, &r);
        MPI_Comm_free(&b);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Send(&in, 1, MPI_INT, 0, 4, MPI_COMM_WORLD);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        v = 42;
        MPI_Send(&v, 1, MPI_INT, 1, 9, b);
        MPI_Comm_free(&b);
        MPI_Recv(&in, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("pending receive: %d\n", in);
    }

    /* a freed: its shadow is back in the budget, and e gets it. */
    MPI_Comm_free(&a);
    MPI_Comm_dup(MPI_COMM_WORLD, &e);
    if (rank == 0)
        MPI_Send(ibuf, 4, MPI_INT, 1, 1, e); /* expect: GLOBAL:P2P:TYPE_MISMATCH rank=0 */
    else
        MPI_Recv(fbuf, 4, MPI_FLOAT, 0, 1, e, MPI_STATUS_IGNORE); /* expect: GLOBAL:P2P:TYPE_MISMATCH rank=1 */
    MPI_Comm_free(&e);
    MPI_Finalize();
    return 0;
}
