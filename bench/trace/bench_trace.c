/* Cost of tracing one MPI call that carries a message record: MPI_Send and
 * MPI_Recv of one int to the rank itself on MPI_COMM_SELF (each traced as
 * Enter, MpiSend or MpiRecv, Leave). Blocks of K sends then K receives;
 * prints the median over the blocks of ns per call. Run it without the tool,
 * with the tool off and with MPISCOPE_MODE=trace (bench/trace/run.sh). */
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
    int blocks = argc > 1 ? atoi(argv[1]) : 200, k = argc > 2 ? atoi(argv[2]) : 500;
    double *per = malloc(sizeof(double) * (size_t)blocks);
    int v = 1;
    for (int b = -10; b < blocks; b++) { /* 10 blocks of warm-up */
        double t0 = now_ns();
        for (int i = 0; i < k; i++) MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_SELF);
        for (int i = 0; i < k; i++) MPI_Recv(&v, 1, MPI_INT, 0, 1, MPI_COMM_SELF, MPI_STATUS_IGNORE);
        double t1 = now_ns();
        if (b >= 0) per[b] = (t1 - t0) / (2.0 * k);
    }
    qsort(per, (size_t)blocks, sizeof *per, cmp);
    printf("%.1f\n", per[blocks / 2]);
    free(per);
    MPI_Finalize();
    return 0;
}
