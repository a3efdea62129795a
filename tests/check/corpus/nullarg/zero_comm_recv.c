/* A communicator handle variable holding 0 (NULL) is no handle: MPI-3.1
 * section 2.5.1, handles are returned by MPI calls or are predefined
 * constants, and MPI_COMM_NULL is a constant of its own. In Open MPI a
 * handle is a pointer and the variable is NULL; in MPICH an int, and 0 is
 * no valid handle either. Either MPI ends the job (MPI_ERR_COMM) inside the
 * receive: the finding must be out first, and the tool must not fail on
 * the handle itself. Erroneous: rank 1 receives with a zeroed handle.
 * Correct twin: MPI_COMM_WORLD. */
/* RC: native */
#include <mpi.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, buf[4] = {0};
    MPI_Comm comm;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    comm = MPI_COMM_WORLD;
#ifdef BUG
    memset(&comm, 0, sizeof comm);
#endif
    if (rank == 0) MPI_Send(buf, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
    if (rank == 1) MPI_Recv(buf, 4, MPI_INT, 0, 0, comm, MPI_STATUS_IGNORE); /* EXPECT: LOCAL:ARG:NULL_HANDLE rank=1 */
    MPI_Finalize();
    return 0;
}
