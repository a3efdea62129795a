/* Trace test program: one-sided communication on 2 ranks. Two windows over
 * the world (so that their unification by order matters) and one over a
 * duplicate; fence epochs with put, get, accumulate, get_accumulate,
 * fetch_and_op and compare_and_swap; passive target with lock/unlock and
 * lock_all/unlock_all; general active target (post/start/complete/wait).
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

    C(MPI_Win_free, &win3);
    C(MPI_Win_free, &win2);
    C(MPI_Win_free, &win);
    C(MPI_Comm_free, &dup);
    expect_write(rank);
    MPI_Finalize();
    return 0;
}
