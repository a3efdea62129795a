/* MPI-3.1 section 11.3: a get transfers data as if the target sent a
 * message with target_count, target_datatype and the origin received it
 * with origin_count, origin_datatype; like any message it must fit the
 * receiving buffer. Erroneous: rank 0 gets 8 ints from rank 1's window into
 * an origin buffer described as 4 ints. Correct twin: 4 ints on both sides
 * (and a put of 2 ints into a target block of 4, a shorter message, which
 * is legal). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, win_buf[8] = {0}, local[8] = {0};
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(win_buf, sizeof win_buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    if (rank == 0) {
#ifdef BUG
        MPI_Get(local, 4, MPI_INT, 1, 0, 8, MPI_INT, win); /* EXPECT: LOCAL:RMA:TYPE_MISMATCH rank=0 */
#else
        MPI_Get(local, 4, MPI_INT, 1, 0, 4, MPI_INT, win);
#endif
    }
    MPI_Win_fence(0, win);
    if (rank == 0) MPI_Put(local, 2, MPI_INT, 1, 4, 4, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
