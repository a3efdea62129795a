/* A receive that waits for the rank itself (issue 24): rank 1 posts an
 * MPI_Irecv on a split of MPI_COMM_WORLD with the ranks reversed, naming
 * rank 0 of that communicator, which is world rank 1 itself, and waits for
 * it; rank 0 sends its message on MPI_COMM_WORLD, frees the split (after a
 * barrier on it, so the tool's own comparison at MPI_Comm_free has
 * collectives to compare and waits for rank 1) and goes on to MPI_Finalize.
 * Natively it hangs; check mode must report the deadlock (rank 1 waits for
 * itself) and end the run. With "ok", rank 1 names world rank 0 (rank 1 of
 * the split) and receives nothing from it on the split: it receives the
 * message on MPI_COMM_WORLD, and the run ends normally with no finding.
 */
#include <mpi.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int ok = argc > 1 && strcmp(argv[1], "ok") == 0;
    int rank, size, x = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
    MPI_Barrier(rev);
    MPI_Request r;
    if (rank == 0) {
        MPI_Isend(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        if (ok)
            MPI_Irecv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r);
        else
            MPI_Irecv(&x, 1, MPI_INT, 0, 0, rev, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE); /* expect: GLOBAL:DEADLOCK:HARD rank=1 */
    }
    MPI_Comm_free(&rev);
    MPI_Finalize();
    return 0;
}
