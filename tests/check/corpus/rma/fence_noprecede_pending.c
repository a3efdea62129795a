/* MPI-3.1 section 11.5.5: MPI_MODE_NOPRECEDE asserts that the fence
 * completes no sequence of locally issued RMA calls, and an assertion given
 * by one process of the window's group must be given by all. Erroneous:
 * rank 0 puts to rank 1 and closes the epoch with a fence that asserts
 * MPI_MODE_NOPRECEDE, while rank 1 closes it with 0; the ranks then
 * disagree on where the epoch ends, and the check's own exchange of the
 * epoch's accesses must not make them wait for each other (the program
 * completes without the tool). Correct twin: rank 0 passes 0 too. */
/* RC: native */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, win_buf[4] = {0}, val[4] = {1, 2, 3, 4};
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(win_buf, sizeof win_buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    if (rank == 0) {
        MPI_Put(val, 4, MPI_INT, 1, 0, 4, MPI_INT, win);
#ifdef BUG
        MPI_Win_fence(MPI_MODE_NOPRECEDE, win); /* EXPECT: LOCAL:RMA:FENCE_ASSERT rank=0 */
#else
        MPI_Win_fence(0, win);
#endif
    } else {
        MPI_Win_fence(0, win);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
