/* A datatype handle variable holding 0 (NULL) is no handle (MPI-3.1
 * section 2.5.1; MPI_DATATYPE_NULL is a constant of its own): a NULL
 * pointer in Open MPI, the invalid handle 0 in MPICH. The MPI ends the job
 * (MPI_ERR_TYPE) inside the send; the finding must be out first.
 * Erroneous: rank 0 sends with a zeroed datatype handle. Correct twin:
 * MPI_INT. */
/* RC: native */
#include <mpi.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, buf[4] = {0};
    MPI_Datatype type = MPI_INT;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#ifdef BUG
    memset(&type, 0, sizeof type);
#endif
    if (rank == 0) MPI_Send(buf, 4, type, 1, 0, MPI_COMM_WORLD); /* EXPECT: LOCAL:ARG:NULL_HANDLE rank=0 */
    if (rank == 1) MPI_Recv(buf, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
