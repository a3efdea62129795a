/* A nonblocking vector collective with a type mismatch. MPI-3.1 section
 * 5.12.3 (MPI_Igatherv has the argument rules of MPI_Gatherv, section 5.5):
 * at the root, recvcounts[i] elements of recvtype must match the signature
 * of what rank i sends. A nonblocking collective never waits for the others
 * in the check: its blocks are logged and compared later (here at
 * MPI_Finalize). Erroneous: rank 1 sends 4 floats where the root expects 4
 * ints (same size, so MPI completes the call). Correct twin: 4 ints. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int sbuf[4] = {0}, rbuf[8] = {0};
    int counts[2] = {4, 4}, displs[2] = {0, 4};
    MPI_Datatype t = MPI_INT;
#ifdef BUG
    if (rank == 1) t = MPI_FLOAT;
#endif
    MPI_Request req;
    MPI_Igatherv(sbuf, 4, t, rbuf, counts, displs, MPI_INT, 0, MPI_COMM_WORLD, &req); /* EXPECT: GLOBAL:COLLECTIVE:TYPE_MISMATCH */
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
