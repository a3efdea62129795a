/* More communicators than the MPI has context ids for once check mode's own
 * are counted: `live` duplicates of MPI_COMM_WORLD alive at once, each used,
 * then freed; then `cycles` splits made, used and freed one after another;
 * then one more duplicate, on which a point-to-point exchange and a
 * collective run as at the start. Rank 0 prints what every step computed:
 * the output must be the same with and without the tool.
 *   many_comms LIVE CYCLES */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* Sum over the ranks of rank + k, and a ring exchange: the rank of the left
 * neighbour, checked. Returns the sum, -1 if the exchange went wrong. */
static long long use(MPI_Comm c, int k)
{
    int rank, size, v, sum = 0, left = -1;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    v = rank + k;
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c);
    MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, k % 32768, &left, 1, MPI_INT,
                 (rank + size - 1) % size, k % 32768, c, MPI_STATUS_IGNORE);
    return left == (rank + size - 1) % size ? sum : -1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, live = argc > 1 ? atoi(argv[1]) : 1500, cycles = argc > 2 ? atoi(argv[2]) : 5000;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm *c = malloc(sizeof *c * (size_t)live);
    if (!c) MPI_Abort(MPI_COMM_WORLD, 2);
    long long sum = 0;
    for (int i = 0; i < live; i++) MPI_Comm_dup(MPI_COMM_WORLD, &c[i]);
    for (int i = 0; i < live; i++) {
        long long s = use(c[i], i);
        sum = s < 0 || sum < 0 ? -1 : sum + s;
    }
    if (rank == 0) printf("%d duplicates alive at once: sum %lld\n", live, sum);
    for (int i = live - 1; i >= 0; i--) MPI_Comm_free(&c[i]);
    free(c);

    sum = 0;
    for (int i = 0; i < cycles; i++) {
        MPI_Comm t;
        MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &t); /* reversed order */
        long long s = use(t, i);
        sum = s < 0 || sum < 0 ? -1 : sum + s;
        MPI_Comm_free(&t);
    }
    if (rank == 0) printf("%d splits made and freed: sum %lld\n", cycles, sum);

    MPI_Comm d;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    long long s = use(d, 7);
    MPI_Comm_free(&d);
    if (rank == 0) printf("one more duplicate: sum %lld\n", s);
    MPI_Finalize();
    return 0;
}
