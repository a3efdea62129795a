/* An operation handle variable holding 0 (NULL) is no handle (MPI-3.1
 * section 2.5.1; MPI_OP_NULL is a constant of its own). The MPI ends the
 * job (MPI_ERR_OP) inside the reduction; the finding must be out first.
 * Erroneous: every rank reduces with a zeroed operation handle. Correct
 * twin: MPI_SUM. */
/* RC: native */
#include <mpi.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, one = 1, sum = 0;
    MPI_Op op = MPI_SUM;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#ifdef BUG
    memset(&op, 0, sizeof op);
#endif
    MPI_Reduce(&one, &sum, 1, MPI_INT, op, 0, MPI_COMM_WORLD); /* EXPECT: LOCAL:ARG:NULL_HANDLE */
    MPI_Finalize();
    return 0;
}
