/* Wait-state test program: one phase per Scalasca pattern, each with a known
 * delay D (argv[1] in ms, default 50). Every rank spends about D in each
 * phase, so the barrier that ends a phase costs (almost) no waiting, and the
 * expected waiting times are (N ranks):
 *   Late Sender        2 D  (rank 0: phases 1 and 2)
 *     wrong order        D  (phase 2: tag 1 was sent before the receive of tag 2 began)
 *   Late Receiver        D  (rank 0, MPI_Ssend)
 *   Wait at Barrier  (N-1) D  (every rank but N-1)
 *   Wait at NxN      (N-1) D  (MPI_Allreduce, every rank but N-1)
 *   Late Broadcast   (N-1) D  (MPI_Bcast, every rank but the root 0)
 *   Early Reduce         D  (MPI_Reduce, the root 0)
 * Any number of ranks >= 2. The calls that wait are marked "site:<name>":
 * check_waits.py finds the call sites there. */
#include <mpi.h>
#include <stdlib.h>
#include <time.h>

static void sleep_ms(double ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)((ms - 1000.0 * (time_t)(ms / 1000)) * 1e6)};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double d = argc > 1 ? atof(argv[1]) : 50.0;
    int x = rank, y = 0;
    /* Ranks start apart: the first barrier's waiting is not the program's
     * and is kept out of the trace. */
    MPI_Pcontrol(0);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Pcontrol(1);
    MPI_Barrier(MPI_COMM_WORLD);

    /* 1. Late Sender: rank 1 sends D late. */
    if (rank == 0)
        MPI_Recv(&y, 1, MPI_INT, 1, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* site:recv1 */
    else if (rank == 1) {
        sleep_ms(d);
        MPI_Send(&x, 1, MPI_INT, 0, 10, MPI_COMM_WORLD);
    } else
        sleep_ms(d);
    MPI_Barrier(MPI_COMM_WORLD);

    /* 2. Late Sender, wrong order: tag 1 is sent first, rank 0 waits for tag 2. */
    if (rank == 1) MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Recv(&y, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* site:recv2 */
        MPI_Recv(&y, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        sleep_ms(d);
        MPI_Send(&x, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    } else
        sleep_ms(d);
    MPI_Barrier(MPI_COMM_WORLD);

    /* 3. Late Receiver: rank 1 posts its receive D late; rank 0's Ssend waits. */
    if (rank == 0)
        MPI_Ssend(&x, 1, MPI_INT, 1, 30, MPI_COMM_WORLD); /* site:ssend */
    else if (rank == 1) {
        sleep_ms(d);
        MPI_Recv(&y, 1, MPI_INT, 0, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else
        sleep_ms(d);
    MPI_Barrier(MPI_COMM_WORLD);

    /* 4. Wait at Barrier: the last rank arrives D late. */
    if (rank == size - 1) sleep_ms(d);
    MPI_Barrier(MPI_COMM_WORLD);

    /* 5. Wait at NxN. */
    if (rank == size - 1) sleep_ms(d);
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* site:allreduce */

    /* 6. Late Broadcast: the root enters D late. */
    if (rank == 0) sleep_ms(d);
    MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD); /* site:bcast */

    /* 7. Early Reduce: the root enters D before the others. */
    if (rank != 0) sleep_ms(d);
    MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD); /* site:reduce */
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Finalize();
    return 0;
}
