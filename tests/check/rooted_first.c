/* A program that relies on a rooted collective not synchronizing (MPI-3.1
 * section 5.14 calls it unsafe: a conforming MPI may make MPI_Bcast
 * synchronizing, and then it deadlocks). Rank 0 broadcasts an int and then
 * sends rank 1 a message of 1 MiB, which both MPIs send by rendezvous; rank
 * 1 receives that message before it calls its MPI_Bcast. Natively it ends
 * (the root's MPI_Bcast returns at once), so check mode must not hang it:
 * the tool's own agreement before a collective may wait only where the
 * collective itself waits for every member (issue 24). The zero-buffer
 * replay at MPI_Finalize, where collectives synchronize, reports the
 * potential deadlock. "ok" swaps rank 1's calls: safe under any MPI.
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

enum { BIG = 1 << 18 }; /* ints: 1 MiB */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int ok = argc > 1 && strcmp(argv[1], "ok") == 0;
    int rank, x = 7;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int *big = calloc(BIG, sizeof *big);
    if (rank == 0) {
        MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Send(big, BIG, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        if (ok) MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Recv(big, BIG, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect(bug): GLOBAL:DEADLOCK:POTENTIAL rank=1 */
        if (!ok) MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    free(big);
    MPI_Finalize();
    return x == 7 ? 0 : 1;
}
