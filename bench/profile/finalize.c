/* Time MPI_Finalize takes on each rank after a little traffic (a ring of
 * sends, an allreduce, calls from a few sites), printed by every rank;
 * run.sh keeps the largest. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int buf[256] = {0}, in[256];
    for (int i = 0; i < 20; i++) {
        MPI_Sendrecv(buf, 256, MPI_INT, (r + 1) % n, 0, in, 256, MPI_INT, (r + n - 1) % n, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Allreduce(MPI_IN_PLACE, buf, 16, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now_s();
    MPI_Finalize();
    printf("finalize %d %.6f\n", r, now_s() - t0);
    return 0;
}
