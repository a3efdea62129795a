/* Added cost per MPI call: times blocks of cheap calls and prints the median
 * ns per call over the blocks (medians resist the noise of shared cores).
 * Run once without the tool and once with it; run.sh takes the difference.
 *   overhead <calls per block> <blocks> [first kind: 0, or 3 for the allreduce only]
 * Calls: MPI_Comm_rank (kind OTHER: count, time and call site only),
 * MPI_Sendrecv of 8 bytes with itself (sizes, status, matrix cell too),
 * MPI_Barrier on MPI_COMM_WORLD (a collective that moves nothing) and
 * MPI_Allreduce of 8 bytes on MPI_COMM_WORLD (sizes, histogram and an edge
 * to every other rank; run.sh runs it at 2 and 8 ranks too, where every
 * rank runs the same blocks and rank 0 prints).
 * Each line: name, median of MPI_X, median of PMPI_X timed in blocks
 * interleaved with MPI_X's in the same process. Their difference is the
 * tool's cost without the process-to-process noise, which for MPI_Sendrecv
 * (where the library's buffers land in memory) is larger than the tool's. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 10000, blocks = argc > 2 ? atoi(argv[2]) : 200;
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    double *t = malloc(sizeof *t * (size_t)blocks), *tp = malloc(sizeof *tp * (size_t)blocks);
    long sbuf = 1, rbuf;
    static const char *const name[] = {"comm_rank", "sendrecv_self", "barrier", "allreduce"};
    int first = argc > 3 ? atoi(argv[3]) : 0; /* 3: the allreduce only */
    for (int kind = first; kind < 4; kind++) {
        for (int b = -5; b < blocks; b++) { /* 5 warm-up blocks */
            for (int pm = 0; pm < 2; pm++) {
                double t0 = now_ns();
                int x;
                if (kind == 0 && !pm)
                    for (int i = 0; i < n; i++) MPI_Comm_rank(MPI_COMM_WORLD, &x);
                else if (kind == 0)
                    for (int i = 0; i < n; i++) PMPI_Comm_rank(MPI_COMM_WORLD, &x);
                else if (kind == 1 && !pm)
                    for (int i = 0; i < n; i++)
                        MPI_Sendrecv(&sbuf, 1, MPI_LONG, r, 0, &rbuf, 1, MPI_LONG, r, 0,
                                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                else if (kind == 1)
                    for (int i = 0; i < n; i++)
                        PMPI_Sendrecv(&sbuf, 1, MPI_LONG, r, 0, &rbuf, 1, MPI_LONG, r, 0,
                                      MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                else if (kind == 2 && !pm)
                    for (int i = 0; i < n; i++) MPI_Barrier(MPI_COMM_WORLD);
                else if (kind == 2)
                    for (int i = 0; i < n; i++) PMPI_Barrier(MPI_COMM_WORLD);
                else if (!pm)
                    for (int i = 0; i < n; i++)
                        MPI_Allreduce(&sbuf, &rbuf, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
                else
                    for (int i = 0; i < n; i++)
                        PMPI_Allreduce(&sbuf, &rbuf, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
                if (b >= 0) (pm ? tp : t)[b] = (now_ns() - t0) / n;
            }
        }
        qsort(t, (size_t)blocks, sizeof *t, cmp);
        qsort(tp, (size_t)blocks, sizeof *tp, cmp);
        if (r == 0) printf("%s %.2f %.2f\n", name[kind], t[blocks / 2], tp[blocks / 2]);
    }
    free(tp);
    free(t);
    MPI_Finalize();
    return 0;
}
