/* Start-up and shut-down cost: how long MPI_Init and MPI_Finalize take in
 * a program that does nothing else, timed inside the process (the
 * launcher's own time is not counted). Rank 0 prints the largest MPI_Init
 * time over the ranks; every rank prints its MPI_Finalize time:
 *   init <seconds>
 *   finalize <rank> <seconds>
 * Run by run.sh with and without mpiscope. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    double t0 = now();
    MPI_Init(&argc, &argv);
    double t_init = now() - t0, worst = 0;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Reduce(&t_init, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("init %.6f\n", worst);
    fflush(stdout);
    t0 = now();
    MPI_Finalize();
    printf("finalize %d %.6f\n", rank, now() - t0);
    return 0;
}
