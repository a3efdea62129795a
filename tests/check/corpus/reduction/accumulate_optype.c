/* Predefined operations in the accumulate functions. MPI-3.1 section 11.3.4:
 * MPI_Accumulate takes any predefined operation of section 5.9.2, with the
 * same restrictions on datatypes, or MPI_REPLACE; MPI_Get_accumulate and
 * MPI_Fetch_and_op also MPI_NO_OP (11.3.5). Erroneous: MPI_BAND on
 * MPI_FLOAT in MPI_Accumulate (section 5.9.2 defines the bitwise operations
 * on integers and bytes only). Correct twin: MPI_SUM on MPI_FLOAT; both run
 * MPI_REPLACE and MPI_NO_OP where they belong, which must not be flagged. */
/* TIMEOUT: 30 */
#include <mpi.h>
#include <stddef.h>

int main(int argc, char **argv)
{
    int rank, size;
    float w[4] = {0}, x[2] = {1.0f, 2.0f}, got[2];
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win_create(w, sizeof w, sizeof(float), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
#ifdef BUG
    if (rank == 0) MPI_Accumulate(x, 2, MPI_FLOAT, 1, 0, 2, MPI_FLOAT, MPI_BAND, win); /* EXPECT: LOCAL:ARG:OP_DATATYPE rank=0 */
#else
    if (rank == 0) MPI_Accumulate(x, 2, MPI_FLOAT, 1, 0, 2, MPI_FLOAT, MPI_SUM, win);
#endif
    MPI_Win_fence(0, win);
    if (rank == 1) MPI_Accumulate(x, 2, MPI_FLOAT, 0, 2, 2, MPI_FLOAT, MPI_REPLACE, win);
    MPI_Win_fence(0, win);
    if (rank == 0) MPI_Get_accumulate(NULL, 0, MPI_FLOAT, got, 2, MPI_FLOAT, 1, 0, 2, MPI_FLOAT, MPI_NO_OP, win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
