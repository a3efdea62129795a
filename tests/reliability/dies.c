/* dies: a program that ends one rank early, the way real jobs fail.
 *   dies segv   rank 1 dereferences NULL after some MPI calls
 *   dies term   rank 1 receives SIGTERM (as from a launcher stopping the job)
 *   dies abort  rank 1 calls MPI_Abort(MPI_COMM_WORLD, 7)
 *   dies exit   rank 0 returns 3 from main after MPI_Finalize
 *   dies kill   rank 1 receives SIGKILL (no handler runs: nothing can be saved)
 *   dies nofinalize  rank 1 returns 0 from main without MPI_Finalize
 * With a second argument "calls", ranks 0 and 1 first exchange 5 messages of
 * 100 ints each way with MPI_Sendrecv, known calls for the partial outputs.
 * Rank 0 waits in a receive that never comes for the first three, so the job
 * ends only through the MPI library's own failure handling.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, x = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *how = argc > 1 ? argv[1] : "exit";
    /* "calls-flush": MPI_Pcontrol(2) after the third Sendrecv, so that the
     * partial trace must join the flushed events with the rest. */
    if (argc > 2 && strncmp(argv[2], "calls", 5) == 0 && rank < 2) {
        int out[100] = {0}, in[100];
        for (int i = 0; i < 5; i++) {
            MPI_Sendrecv(out, 100, MPI_INT, 1 - rank, 1, in, 100, MPI_INT, 1 - rank, 1,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (i == 2 && strcmp(argv[2], "calls-flush") == 0) MPI_Pcontrol(2);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (strcmp(how, "exit") == 0) {
        MPI_Finalize();
        return rank == 0 ? 3 : 0;
    }
    if (rank == 1) {
        if (strcmp(how, "segv") == 0) {
            volatile int *p = NULL;
            *p = 1;
        } else if (strcmp(how, "term") == 0) {
            raise(SIGTERM);
        } else if (strcmp(how, "kill") == 0) {
            raise(SIGKILL);
        } else if (strcmp(how, "abort") == 0) {
            MPI_Abort(MPI_COMM_WORLD, 7);
        } else if (strcmp(how, "nofinalize") == 0) {
            return 0;
        }
    } else {
        MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
