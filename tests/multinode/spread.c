/* The multi-node tests' program: every rank prints "rank R host H" (the
 * ground truth of where each rank ran, from the program itself), then 10
 * rounds of a ring exchange (MPI_Sendrecv to the next rank, between nodes),
 * an MPI_Allreduce and an MPI_Barrier per round; every call counted for
 * tests/trace/check_trace.py through tests/trace/expect.h.
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

#include "../trace/expect.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    C(MPI_Comm_rank, MPI_COMM_WORLD, &rank);
    C(MPI_Comm_size, MPI_COMM_WORLD, &size);
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    printf("rank %d host %s\n", rank, host);
    fflush(stdout);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    long sum = 0;
    for (int i = 0; i < 10; i++) {
        int out = rank * 100 + i, in = -1;
        C(MPI_Sendrecv, &out, 1, MPI_INT, next, i, &in, 1, MPI_INT, prev, i, MPI_COMM_WORLD,
          MPI_STATUS_IGNORE);
        long v = in, t = 0;
        C(MPI_Allreduce, &v, &t, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        sum += t;
        C(MPI_Barrier, MPI_COMM_WORLD);
    }
    expect_write(rank);
    if (rank == 0) printf("sum %ld\n", sum);
    MPI_Finalize();
    return 0;
}
