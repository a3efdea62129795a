/* Added cost per MPI call: times blocks of cheap calls and prints the median
 * ns per call over the blocks (medians resist the noise of shared cores).
 * Run once without the tool and once with it; run.sh takes the difference.
 *   overhead <calls per block> <blocks>
 * Calls: MPI_Comm_rank (kind OTHER: count, time and call site only) and
 * MPI_Sendrecv of 8 bytes with itself (sizes, status, matrix cell too). */
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
    double *t = malloc(sizeof *t * (size_t)blocks);
    long sbuf = 1, rbuf;
    for (int kind = 0; kind < 2; kind++) {
        for (int b = -5; b < blocks; b++) { /* 5 warm-up blocks */
            double t0 = now_ns();
            int x;
            if (kind == 0)
                for (int i = 0; i < n; i++) MPI_Comm_rank(MPI_COMM_WORLD, &x);
            else
                for (int i = 0; i < n; i++)
                    MPI_Sendrecv(&sbuf, 1, MPI_LONG, r, 0, &rbuf, 1, MPI_LONG, r, 0, MPI_COMM_WORLD,
                                 MPI_STATUS_IGNORE);
            if (b >= 0) t[b] = (now_ns() - t0) / n;
        }
        qsort(t, (size_t)blocks, sizeof *t, cmp);
        if (r == 0) printf("%s %.2f\n", kind == 0 ? "comm_rank" : "sendrecv_self", t[blocks / 2]);
    }
    free(t);
    MPI_Finalize();
    return 0;
}
