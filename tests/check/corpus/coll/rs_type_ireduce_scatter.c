/* MPI_Ireduce_scatter's datatype. MPI-3.1 sections 5.10.1 and 5.9.1: every
 * process must pass the same counts and a datatype of the same signature.
 * Erroneous: rank 1 reduces floats where rank 0 reduces ints (same size:
 * MPI adds bit patterns of different types). Correct twin: both ints. */
/* TIMEOUT: 20 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int sbuf[4] = {1, 2, 3, 4}, rbuf[4] = {0};
    int rc[2] = {2, 2};
    MPI_Request r;
#ifdef BUG
    MPI_Ireduce_scatter(sbuf, rbuf, rc, rank ? MPI_FLOAT : MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r); /* EXPECT: GLOBAL:COLLECTIVE:TYPE_MISMATCH */
#else
    MPI_Ireduce_scatter(sbuf, rbuf, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
#endif
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
