/* Two ranks for the unexpected-queue check and the pvar samples
 * (src/mpit/pvars.c). "flood": rank 0 sends N small messages before rank 1
 * posts any receive (a barrier orders them; the messages arrive first), then
 * rank 1 receives them one by one at one call site, so the queue is N long
 * at the first receive and falls by one per receive. "clean": rank 1 posts
 * all N receives before rank 0 sends, so nothing is ever unexpected.
 * The barriers run on a duplicate of MPI_COMM_WORLD, so that the messages
 * on MPI_COMM_WORLD (whose queues are sampled) are exactly the N.
 * "flood-sendrecv": the same, received by MPI_Sendrecv (sending nothing to
 * MPI_PROC_NULL).
 * "flood-late": the flood after one receive that waits for its message
 * (rank 0 sends it half a second later): MPICH's own measure probes only
 * every probe_stride-th receive after one that found nothing, so the run is
 * counted from the flood's probe_stride-th receive.
 * Usage: mpit_unexpected flood|flood-sendrecv|flood-late|clean [N] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int sendrecv = argc > 1 && strcmp(argv[1], "flood-sendrecv") == 0;
    int late = argc > 1 && strcmp(argv[1], "flood-late") == 0;
    int flood = sendrecv || late || (argc > 1 && strcmp(argv[1], "flood") == 0);
    int n = argc > 2 ? atoi(argv[2]) : 200;
    if (size != 2 || n < 1 || n > 4096) {
        if (rank == 0) fprintf(stderr, "needs 2 ranks and 1 <= N <= 4096\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm sync;
    MPI_Comm_dup(MPI_COMM_WORLD, &sync);
    long *buf = calloc((size_t)n, sizeof *buf);
    MPI_Request *reqs = calloc((size_t)n, sizeof *reqs);
    long sum = 0;
    if (late) { /* one receive whose message is not there yet */
        long one = 0;
        MPI_Barrier(sync);
        if (rank == 0) {
            nanosleep(&(struct timespec){0, 500000000}, NULL);
            MPI_Send(&one, 1, MPI_LONG, 1, n, MPI_COMM_WORLD);
        } else {
            MPI_Recv(&one, 1, MPI_LONG, 0, n, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    if (flood) {
        if (rank == 0)
            for (int i = 0; i < n; i++) {
                buf[i] = i;
                MPI_Send(&buf[i], 1, MPI_LONG, 1, i, MPI_COMM_WORLD);
            }
        MPI_Barrier(sync);
        if (rank == 1)
            for (int i = 0; i < n; i++) {
                if (sendrecv) /* the next line is FLOOD_SENDRECV */
                    MPI_Sendrecv(NULL, 0, MPI_LONG, MPI_PROC_NULL, 0, &buf[i], 1, MPI_LONG, 0, i,
                                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                else
                    MPI_Recv(&buf[i], 1, MPI_LONG, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* FLOOD_RECV */
                sum += buf[i];
            }
    } else {
        if (rank == 1)
            for (int i = 0; i < n; i++)
                MPI_Irecv(&buf[i], 1, MPI_LONG, 0, i, MPI_COMM_WORLD, &reqs[i]);
        MPI_Barrier(sync);
        if (rank == 0)
            for (int i = 0; i < n; i++) {
                buf[i] = i;
                MPI_Send(&buf[i], 1, MPI_LONG, 1, i, MPI_COMM_WORLD);
            }
        if (rank == 1) {
            MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
            for (int i = 0; i < n; i++) sum += buf[i];
        }
    }
    MPI_Barrier(sync);
    int ok = rank == 0 || sum == (long)n * (n - 1) / 2;
    if (!ok) fprintf(stderr, "rank 1: sum %ld, expected %ld\n", sum, (long)n * (n - 1) / 2);
    free(buf);
    free(reqs);
    MPI_Comm_free(&sync);
    MPI_Finalize();
    return ok ? 0 : 1;
}
