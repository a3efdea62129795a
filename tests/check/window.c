/* osu_bw's pattern under --check (issue 14): per window rank 1 posts 64
 * MPI_Irecv and rank 0 64 MPI_Isend of 8 bytes, both wait for all, then
 * rank 1 replies with 4 bytes. With "same" every receive of a window goes
 * into one buffer: each but the first is posted while an earlier receive
 * into the same bytes is pending (MPI-3.1 section 3.7.2: a receive buffer
 * must not be accessed until its receive completes), a true
 * LOCAL:BUFFER:PENDING_OVERLAP, 63 times per window; with "apart" each
 * receive has its own buffer and nothing is wrong. Either way the run must
 * end as natively (no hang, however many repeats).
 *   window <windows> same|apart */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { W = 64 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, windows = argc > 1 ? atoi(argv[1]) : 100;
    int same = argc > 2 && !strcmp(argv[2], "same");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    static double buf[W], one;
    int reply = 0;
    MPI_Request q[W];
    MPI_Status st[W];
    for (int w = 0; w < windows; w++) {
        if (rank == 1) {
            for (int i = 0; i < W; i++)
                MPI_Irecv(same ? &one : &buf[i], 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, &q[i]); /* site:window-irecv */
            MPI_Waitall(W, q, st);
            MPI_Send(&reply, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
        } else if (rank == 0) {
            for (int i = 0; i < W; i++) {
                buf[i] = w + i;
                MPI_Isend(&buf[i], 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, &q[i]);
            }
            MPI_Waitall(W, q, st);
            MPI_Recv(&reply, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    if (rank == 1) printf("window: %d windows, last value %g\n", windows, same ? one : buf[W - 1]);
    MPI_Finalize();
    return 0;
}
