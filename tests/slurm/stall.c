/* The scancel test's program: known calls, then a wait that only the job's
 * cancellation ends. Every rank makes 5 rounds of a ring exchange
 * (MPI_Sendrecv of 100 ints to the next rank) and one MPI_Barrier, prints
 * "rank R host H ready", then sleeps outside MPI until a signal ends it (a
 * minute at most, so that a test gone wrong still ends). scancel sends
 * SIGTERM to every rank; what each recorded is then all there is.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int out[100] = {0}, in[100];
    for (int i = 0; i < 5; i++)
        MPI_Sendrecv(out, 100, MPI_INT, (rank + 1) % size, i, in, 100, MPI_INT,
                     (rank + size - 1) % size, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    printf("rank %d host %s ready\n", rank, host);
    fflush(stdout);
    for (int i = 0; i < 60; i++) sleep(1);
    MPI_Finalize();
    return 0;
}
