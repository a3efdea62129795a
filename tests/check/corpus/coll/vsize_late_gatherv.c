/* A vector collective's size mismatch after the first 64 collectives of a
 * communicator, which the check logs and compares later (at every 64th
 * logged one, MPI_Comm_free and MPI_Finalize) instead of at once. MPI-3.1
 * section 5.5: at MPI_Gatherv's root, recvcounts[i] elements of recvtype
 * must match the signature of what rank i sends. Erroneous: after 70
 * barriers rank 1 sends 2 ints where the root expects 4 (a shorter message
 * is no truncation: MPI completes the call). Correct twin: 4 ints. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int sbuf[4] = {0}, rbuf[8] = {0};
    int counts[2] = {4, 4}, displs[2] = {0, 4};
    for (int i = 0; i < 70; i++) MPI_Barrier(MPI_COMM_WORLD);
    int n = 4;
#ifdef BUG
    if (rank == 1) n = 2;
#endif
    MPI_Gatherv(sbuf, n, MPI_INT, rbuf, counts, displs, MPI_INT, 0, MPI_COMM_WORLD); /* EXPECT: GLOBAL:COLLECTIVE:SIZE_MISMATCH */
    MPI_Finalize();
    return 0;
}
