/* Messages beyond 2^31 bytes, where 32-bit sizes would wrap: rank 0 sends
 * rank 1 one message of 2049 elements of a 1 MiB contiguous type (2^31 +
 * 2^20 bytes, tag 0), with MPI-4 the same bytes again as MPI_Send_c of an
 * MPI_Count of MPI_BYTE (tag 1), then broadcasts the 2049 elements. Rank 1
 * checks the last byte of each; exit 1 if one is wrong. check_large.py
 * compares the profile, the matrix, the histogram bins and the trace's
 * message lengths with these sizes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const size_t mib = (size_t)1 << 20, n = 2049 * mib;
    char *b = malloc(n);
    if (!b) MPI_Abort(MPI_COMM_WORLD, 2);
    memset(b, rank == 0 ? 7 : 0, n);
    MPI_Datatype blk;
    MPI_Type_contiguous((int)mib, MPI_BYTE, &blk);
    MPI_Type_commit(&blk);
    if (rank == 0) MPI_Send(b, 2049, blk, 1, 0, MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Recv(b, 2049, blk, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        bad |= b[n - 1] != 7;
        b[n - 1] = 0;
    }
#if MPI_VERSION >= 4
    if (rank == 0) MPI_Send_c(b, (MPI_Count)n, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Recv_c(b, (MPI_Count)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        bad |= b[n - 1] != 7;
        b[n - 1] = 0;
    }
#endif
    MPI_Bcast(b, 2049, blk, 0, MPI_COMM_WORLD);
    bad |= b[n - 1] != 7;
    MPI_Type_free(&blk);
    free(b);
    MPI_Finalize();
    return bad;
}
