/* Trace test program: one-sided communication on 2 ranks. Two windows over
 * the world (so that their unification by order matters) and one over a
 * duplicate; fence epochs with put, get, accumulate, get_accumulate,
 * fetch_and_op and compare_and_swap; passive target with lock/unlock and
 * lock_all/unlock_all; general active target (post/start/complete/wait);
 * request-based operations with Wait/Test/Waitall, flushes and Win_sync.
 * Every traced call goes through C(); check_trace.py --rma compares the RMA
 * records with what this program did (counts, bytes, targets). */
#include "expect.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    C(MPI_Comm_rank, MPI_COMM_WORLD, &rank);
    C(MPI_Comm_size, MPI_COMM_WORLD, &size);
    if (size != 2) MPI_Abort(MPI_COMM_WORLD, 2);
    int other = 1 - rank;
    int mem[64] = {0}, mem2[16] = {0}, buf[64], res[64];
    double dmem[8] = {0}, d[8] = {0};
    for (int i = 0; i < 64; i++) buf[i] = rank * 100 + i;
    MPI_Win win, win2, win3;
    MPI_Comm dup;
    C(MPI_Comm_dup, MPI_COMM_WORLD, &dup);
    C(MPI_Win_create, mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    C(MPI_Win_create, mem2, sizeof mem2, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win2);
    C(MPI_Win_create, dmem, sizeof dmem, sizeof(double), MPI_INFO_NULL, dup, &win3);

    /* Fence epoch: put 10 ints and get 5 ints (rank 0 -> 1), accumulate 3
     * ints and get_accumulate 2 ints (both ranks). */
    C(MPI_Win_fence, 0, win);
    if (rank == 0) {
        C(MPI_Put, buf, 10, MPI_INT, 1, 0, 10, MPI_INT, win);
        C(MPI_Get, res, 5, MPI_INT, 1, 20, 5, MPI_INT, win);
    }
    C(MPI_Win_fence, 0, win);
    C(MPI_Accumulate, buf, 3, MPI_INT, other, 30, 3, MPI_INT, MPI_SUM, win);
    C(MPI_Win_fence, 0, win);
    C(MPI_Get_accumulate, buf, 2, MPI_INT, res, 2, MPI_INT, other, 40, 2, MPI_INT, MPI_SUM, win);
    C(MPI_Win_fence, 0, win);
    CHECK(rank != 1 || mem[0] == 0);
    CHECK(rank != 1 || mem[9] == 9);

    /* Passive target: rank 1 locks rank 0's second window and puts 4 ints,
     * then both use lock_all with a fetch_and_op and a compare_and_swap. */
    if (rank == 1) {
        C(MPI_Win_lock, MPI_LOCK_EXCLUSIVE, 0, 0, win2);
        C(MPI_Put, buf, 4, MPI_INT, 0, 0, 4, MPI_INT, win2);
        C(MPI_Win_unlock, 0, win2);
    }
    C(MPI_Barrier, MPI_COMM_WORLD);
    C(MPI_Win_lock_all, 0, win2);
    int one = 1, cmp = 0;
    C(MPI_Fetch_and_op, &one, res, MPI_INT, other, 8, MPI_SUM, win2);
    C(MPI_Compare_and_swap, &one, &cmp, res, MPI_INT, other, 9, win2);
    C(MPI_Win_unlock_all, win2);
    C(MPI_Barrier, MPI_COMM_WORLD);
    CHECK(rank != 0 || mem2[3] == 103);

    /* General active target on the third window: rank 0 exposes, rank 1
     * accesses with a put of 2 doubles. */
    MPI_Group world, peer;
    C(MPI_Comm_group, MPI_COMM_WORLD, &world);
    C(MPI_Group_incl, world, 1, &other, &peer);
    if (rank == 0) {
        C(MPI_Win_post, peer, 0, win3);
        C(MPI_Win_wait, win3);
    } else {
        C(MPI_Win_start, peer, 0, win3);
        C(MPI_Put, d, 2, MPI_DOUBLE, 0, 0, 2, MPI_DOUBLE, win3);
        C(MPI_Win_complete, win3);
    }
    C(MPI_Group_free, &peer);
    C(MPI_Group_free, &world);

    /* Request-based operations in a lock_all epoch on the first window, to
     * the other rank: Rput 6 ints and Rget 3 ints (completed by Wait and by
     * Tests until one succeeds; the failed Tests are counted into
     * rmatests.<rank>), Raccumulate 2 ints and Rget_accumulate 1 int
     * (completed by Waitall after two flushes), then the _all flushes and
     * Win_sync. */
    MPI_Request rq[4];
    C(MPI_Win_lock_all, 0, win);
    C(MPI_Rput, buf, 6, MPI_INT, other, 50, 6, MPI_INT, win, &rq[0]);
    C(MPI_Rget, res, 3, MPI_INT, other, 0, 3, MPI_INT, win, &rq[1]);
    C(MPI_Wait, &rq[0], MPI_STATUS_IGNORE);
    int flag = 0;
    long failed_tests = 0;
    while (!flag) {
        C(MPI_Test, &rq[1], &flag, MPI_STATUS_IGNORE);
        if (!flag) failed_tests++;
    }
    C(MPI_Raccumulate, buf, 2, MPI_INT, other, 56, 2, MPI_INT, MPI_SUM, win, &rq[2]);
    C(MPI_Rget_accumulate, buf, 1, MPI_INT, res, 1, MPI_INT, other, 58, 1, MPI_INT, MPI_SUM, win,
      &rq[3]);
    C(MPI_Win_flush, other, win);
    C(MPI_Win_flush_local, other, win);
    MPI_Status sts[2];
    C(MPI_Waitall, 2, &rq[2], sts);
    C(MPI_Win_flush_all, win);
    C(MPI_Win_flush_local_all, win);
    C(MPI_Win_sync, win);
    C(MPI_Win_unlock_all, win);
    C(MPI_Barrier, MPI_COMM_WORLD);
    CHECK(mem[50] == 100 * other);
    {
        char path[4096];
        const char *dir = getenv("MPISCOPE_OUTPUT");
        snprintf(path, sizeof path, "%s/rmatests.%d", dir ? dir : ".", rank);
        FILE *f = fopen(path, "w");
        CHECK(f != NULL);
        fprintf(f, "%ld\n", failed_tests);
        fclose(f);
    }

    C(MPI_Win_free, &win3);
    C(MPI_Win_free, &win2);
    C(MPI_Win_free, &win);
    C(MPI_Comm_free, &dup);
    expect_write(rank);
    MPI_Finalize();
    return 0;
}
