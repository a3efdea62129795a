/* MPI_Ialltoallw's per-block signatures. MPI-3.1 sections 5.8 and 5.12.5:
 * the type signature of sendcounts[j], sendtypes[j] at process i must match
 * that of recvcounts[i], recvtypes[i] at process j. Erroneous: rank 0 sends
 * 4 floats to rank 1, which receives 4 ints (same size: MPI does not
 * notice). Correct twin: rank 1 receives 4 floats; each rank's block to
 * itself is ints on both sides. */
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
    MPI_Request r;
    st[1 - rank] = rank == 0 ? MPI_FLOAT : MPI_INT; /* rank 0 sends floats to 1 */
#ifdef BUG
    MPI_Ialltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD, &r); /* EXPECT: GLOBAL:COLLECTIVE:TYPE_MISMATCH */
#else
    rt[1 - rank] = rank == 1 ? MPI_FLOAT : MPI_INT;
    MPI_Ialltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD, &r);
#endif
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
