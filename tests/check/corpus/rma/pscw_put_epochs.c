/* Puts to one location in PSCW epochs. MPI-3.1 section 11.7: a put
 * concurrent with another access to the same location is erroneous; in
 * PSCW, accesses of different origins are concurrent when they fall into
 * one exposure epoch of the target (MPI_Win_post to MPI_Win_wait, section
 * 11.5.2), and ordered when they fall into two successive ones. Erroneous:
 * ranks 0 and 1 put to element 0 of rank 0's window in one exposure epoch.
 * Correct twin: rank 1 puts in a first exposure epoch, rank 0 in a second
 * one (each post/wait exposes to one origin; the wait of the first ends
 * before the second post). */
/* TIMEOUT: 20 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int wbuf[8] = {0}, obuf[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    int zero = 0, one = 1, both[2] = {0, 1};
    MPI_Win win;
    MPI_Group world, target, origins, g0, g1;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &zero, &target);
    MPI_Group_incl(world, 2, both, &origins);
    MPI_Group_incl(world, 1, &zero, &g0);
    MPI_Group_incl(world, 1, &one, &g1);
    MPI_Win_create(wbuf, sizeof wbuf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
#ifdef BUG
    if (rank == 0) MPI_Win_post(origins, 0, win);
    MPI_Win_start(target, 0, win);
    MPI_Put(obuf + rank, 1, MPI_INT, 0, 0, 1, MPI_INT, win); /* EXPECT: GLOBAL:RMA:ACCUMULATE_CONFLICT */
    MPI_Win_complete(win);
    if (rank == 0) MPI_Win_wait(win);
#else
    /* First exposure epoch: rank 1 puts. */
    if (rank == 0) MPI_Win_post(g1, 0, win);
    if (rank == 1) {
        MPI_Win_start(target, 0, win);
        MPI_Put(obuf + rank, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_complete(win);
    }
    if (rank == 0) MPI_Win_wait(win);
    /* Second one: rank 0 puts to itself. */
    if (rank == 0) {
        MPI_Win_post(g0, 0, win);
        MPI_Win_start(target, 0, win);
        MPI_Put(obuf + rank, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_complete(win);
        MPI_Win_wait(win);
    }
#endif
    MPI_Win_free(&win);
    MPI_Group_free(&g1);
    MPI_Group_free(&g0);
    MPI_Group_free(&origins);
    MPI_Group_free(&target);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
