/* Conflicting accumulates in one PSCW exposure epoch. MPI-3.1 section 11.5.2:
 * the accesses of every origin between its MPI_Win_start and MPI_Win_complete
 * fall into the target's exposure epoch between MPI_Win_post and
 * MPI_Win_wait, in no order among origins; section 11.7.1 / 11.2.1
 * (accumulate_ops=same_op_no_op): concurrent accumulates to one location
 * must use the same operation (or MPI_NO_OP) and basic datatype. Rank 0
 * exposes its window to ranks 0 and 1 and accesses it itself too.
 * Erroneous: rank 0 accumulates with MPI_SUM, rank 1 with MPI_MAX, both to
 * element 0 of rank 0's window in one exposure epoch. Correct twin: both
 * use MPI_SUM. */
/* TIMEOUT: 20 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int wbuf[8] = {0}, obuf[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    int zero = 0, both[2] = {0, 1};
    MPI_Win win;
    MPI_Group world, target, origins;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &zero, &target);
    MPI_Group_incl(world, 2, both, &origins);
    MPI_Win_create(wbuf, sizeof wbuf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    if (rank == 0) MPI_Win_post(origins, 0, win);
    MPI_Win_start(target, 0, win);
#ifdef BUG
    MPI_Accumulate(obuf, 1, MPI_INT, 0, 0, 1, MPI_INT, rank == 0 ? MPI_SUM : MPI_MAX, win); /* EXPECT: GLOBAL:RMA:ACCUMULATE_CONFLICT */
#else
    MPI_Accumulate(obuf, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
#endif
    MPI_Win_complete(win);
    if (rank == 0) MPI_Win_wait(win);
    MPI_Win_free(&win);
    MPI_Group_free(&origins);
    MPI_Group_free(&target);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
