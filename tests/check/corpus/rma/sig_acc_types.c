/* MPI-3.1 section 11.3.4: the origin and target datatypes of an
 * accumulate must be built from the same predefined datatype (and, as for
 * a put, section 11.3, the data must match the target's type signature).
 * Erroneous: rank 0 adds 4 floats into a target described as 4 ints (the
 * same number of bytes). Correct twin: ints on both sides. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, win_buf[4] = {0}, ival[4] = {1, 2, 3, 4};
    float fval[4] = {1, 2, 3, 4};
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(win_buf, sizeof win_buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    if (rank == 0) {
#ifdef BUG
        MPI_Accumulate(fval, 4, MPI_FLOAT, 1, 0, 4, MPI_INT, MPI_SUM, win); /* EXPECT: LOCAL:RMA:TYPE_MISMATCH rank=0 */
#else
        MPI_Accumulate(ival, 4, MPI_INT, 1, 0, 4, MPI_INT, MPI_SUM, win);
#endif
    }
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    (void)fval;
    (void)ival;
    MPI_Finalize();
    return 0;
}
