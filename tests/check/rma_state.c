/* One-sided epochs and request state that are correct (MPI-3.1 chapter 11,
 * sections 3.7.3, 3.9): none of them may give a finding. Fence epochs with
 * asserts, disjoint puts from every rank, same-operation accumulates and
 * MPI_NO_OP reads of one location, interleaved puts through a strided target
 * type, PSCW closed by MPI_Win_test, lock/flush/unlock with the origin
 * buffer reused after each flush, lock_all with MPI_Rput/MPI_Rget completed
 * by MPI_Wait, MPI_Win_allocate; many requests whose handles MPI reuses
 * while stale copies are kept (never used), persistent requests restarted
 * after completion. Run on any number of ranks >= 2.
 *
 * With the argument "bug", a few errors that do not make MPI abort are
 * added; each must be found at its line (expect markers): a put and an
 * accumulate from two different origins (the two highest ranks) to one
 * location of rank 0 in one fence epoch, and an origin buffer changed
 * between MPI_Put and the MPI_Win_flush that completes it.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

enum { N = 16 };

int main(int argc, char **argv)
{
    int rank, size, bug = argc > 1 && strcmp(argv[1], "bug") == 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int wbuf[N * 8] = {0}, obuf[N] = {0}, res[N] = {0};
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Win win;
    MPI_Win_create(wbuf, sizeof wbuf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);

    /* Fence epochs: each rank puts to its own slot of every target;
     * everybody adds to element 0 of rank 0 and reads it with MPI_NO_OP. */
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    for (int t = 0; t < size; t++) {
        obuf[0] = rank;
        MPI_Put(obuf, 1, MPI_INT, t, 1 + rank, 1, MPI_INT, win);
    }
    MPI_Win_fence(0, win);
    int one = 1, got = 0;
    MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
    MPI_Fetch_and_op(&one, &got, MPI_INT, 0, 0, MPI_SUM, win);
    MPI_Get_accumulate(NULL, 0, MPI_INT, res, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_NO_OP, win);
    MPI_Get(res + 1, 1, MPI_INT, right, 1 + right, 1, MPI_INT, win);
    MPI_Get(res + 2, 1, MPI_INT, right, 1 + right, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    /* Interleaved: rank r writes elements r, r + size, ... of the block at
     * 64 of rank 0 through a strided type (overlapping extents, disjoint
     * bytes). */
    MPI_Datatype col;
    MPI_Type_vector(4, 1, size, MPI_INT, &col);
    MPI_Type_commit(&col);
    int four[4] = {rank, rank, rank, rank};
    MPI_Put(four, 4, MPI_INT, 0, 64 + rank, 1, col, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    MPI_Type_free(&col);
    if (rank == 0 && wbuf[0] != 2 * size) {
        fprintf(stderr, "rma_state: element 0 is %d, not %d\n", wbuf[0], 2 * size);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (res[1] != right || res[2] != right) {
        fprintf(stderr, "rma_state: got %d %d from rank %d\n", res[1], res[2], right);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    /* PSCW: every rank exposes its window to its left neighbour and
     * accesses its right one; the exposure is closed by MPI_Win_test. */
    MPI_Group world, gl, gr;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &left, &gl);
    MPI_Group_incl(world, 1, &right, &gr);
    MPI_Win_post(gl, 0, win);
    MPI_Win_start(gr, 0, win);
    obuf[0] = 100 + rank;
    MPI_Put(obuf, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    MPI_Win_complete(win);
    obuf[0] = -1; /* after the completion: allowed */
    int done = 0;
    while (!done) MPI_Win_test(win, &done);
    if (wbuf[0] != 100 + left) {
        fprintf(stderr, "rma_state: PSCW gave %d, not %d\n", wbuf[0], 100 + left);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Group_free(&gl);
    MPI_Group_free(&gr);
    MPI_Group_free(&world);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Passive target: the origin buffer is reused after each flush. */
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    for (int i = 0; i < 4; i++) {
        obuf[i] = i;
        MPI_Put(&obuf[i], 1, MPI_INT, right, 8 + rank, 1, MPI_INT, win);
        MPI_Win_flush(right, win);
    }
    obuf[5] = 5;
    MPI_Put(&obuf[5], 1, MPI_INT, right, 8 + rank, 1, MPI_INT, win);
    MPI_Win_flush_local(right, win);
    obuf[5] = 6;
    MPI_Win_unlock(right, win);
    MPI_Barrier(MPI_COMM_WORLD);
    /* lock_all with request-based operations, completed by MPI_Wait. */
    MPI_Win_lock_all(0, win);
    MPI_Request rq[2];
    obuf[6] = rank;
    MPI_Rput(&obuf[6], 1, MPI_INT, right, 40 + rank, 1, MPI_INT, win, &rq[0]);
    MPI_Rget(&res[6], 1, MPI_INT, left, 40 + left, 1, MPI_INT, win, &rq[1]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    obuf[6] = -1;
    MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);

    /* A window MPI allocates, in fence epochs. */
    int *mem;
    MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    MPI_Win_fence(0, win);
    MPI_Accumulate(&one, 1, MPI_INT, right, rank % N, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);

    /* Requests: handles MPI reuses, stale copies kept and never used. */
    MPI_Request stale[64], r[2];
    MPI_Status st[2]; /* not MPI_STATUSES_IGNORE: GCC warns on MPICH's prototype */
    int x = rank, y = -1;
    for (int i = 0; i < 64; i++) {
        MPI_Irecv(&y, 1, MPI_INT, left, i, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(&x, 1, MPI_INT, right, i, MPI_COMM_WORLD, &r[1]);
        stale[i] = r[i % 2];
        if (i % 3 == 0) {
            MPI_Waitall(2, r, st);
        } else {
            int idx, flag = 0;
            MPI_Waitany(2, r, &idx, MPI_STATUS_IGNORE);
            while (!flag) MPI_Test(&r[1 - idx], &flag, MPI_STATUS_IGNORE);
        }
        MPI_Wait(&r[0], MPI_STATUS_IGNORE); /* MPI_REQUEST_NULL now: allowed */
    }
    (void)stale;
    MPI_Request p[2];
    MPI_Send_init(&x, 1, MPI_INT, right, 99, MPI_COMM_WORLD, &p[0]);
    MPI_Recv_init(&y, 1, MPI_INT, left, 99, MPI_COMM_WORLD, &p[1]);
    for (int i = 0; i < 8; i++) {
        MPI_Startall(2, p);
        MPI_Waitall(2, p, st);
        MPI_Start(&p[1]);
        MPI_Start(&p[0]);
        MPI_Wait(&p[0], MPI_STATUS_IGNORE);
        MPI_Wait(&p[1], MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&p[0]);
    MPI_Request_free(&p[1]);
    MPI_Request nb;
    MPI_Ibarrier(MPI_COMM_WORLD, &nb);
    MPI_Wait(&nb, MPI_STATUS_IGNORE);
    MPI_Isend(&x, 1, MPI_INT, right, 7, MPI_COMM_WORLD, &nb);
    MPI_Request_free(&nb); /* an active point-to-point request: legal */
    MPI_Recv(&y, 1, MPI_INT, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    if (bug) {
        MPI_Win_create(wbuf, sizeof wbuf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        MPI_Win_fence(0, win);
        if (rank == size - 1) MPI_Put(&one, 1, MPI_INT, 0, 3, 1, MPI_INT, win); /* expect: GLOBAL:RMA:ACCUMULATE_CONFLICT */
        if (rank == size - 2) MPI_Accumulate(&one, 1, MPI_INT, 0, 3, 1, MPI_INT, MPI_SUM, win); /* expect: GLOBAL:RMA:ACCUMULATE_CONFLICT */
        MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
        if (rank == 0) {
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
            obuf[0] = 1;
            MPI_Put(obuf, 1, MPI_INT, 1, 0, 1, MPI_INT, win); /* expect: LOCAL:RMA:ORIGIN_BUFFER rank=0 */
            obuf[0] = 2;
            MPI_Win_flush(1, win);
            MPI_Win_unlock(1, win);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_free(&win);
    }
    MPI_Finalize();
    return 0;
}
