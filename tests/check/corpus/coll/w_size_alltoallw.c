/* MPI_Alltoallw's per-block signatures. MPI-3.1 section 5.8: the type
 * signature of sendcounts[j], sendtypes[j] at process i must match that of
 * recvcounts[i], recvtypes[i] at process j. Erroneous: rank 1 sends 3 ints
 * to rank 0, which expects 4 (rank 0 receives less than it posted: no
 * truncation). Correct twin: they agree. */
/* TIMEOUT: 20 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int sbuf[8] = {0}, rbuf[8] = {0};
    int sc[2] = {4, 4}, rc[2] = {4, 4}, sd[2] = {0, 16}, rd[2] = {0, 16};
    MPI_Datatype st[2] = {MPI_INT, MPI_INT}, rt[2] = {MPI_INT, MPI_INT};
#ifdef BUG
    if (rank == 1) sc[0] = 3;
    MPI_Alltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD); /* EXPECT: GLOBAL:COLLECTIVE:SIZE_MISMATCH */
#else
    MPI_Alltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD);
#endif
    MPI_Finalize();
    return 0;
}
