/* Four threads under MPI_THREAD_MULTIPLE, each on its own duplicate of
 * MPI_COMM_WORLD: thread t makes 25 + t MPI_Sendrecv calls of 8 x (t + 1)
 * bytes to the next rank, from the previous one. The profile merges the
 * threads' tables: counts and bytes are exact sums. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 4 };
static MPI_Comm comms[THREADS];
static int rank, size;

static void *work(void *arg)
{
    int t = (int)(long)arg;
    char out[64] = {0}, in[64];
    for (int i = 0; i < 25 + t; i++)
        MPI_Sendrecv(out, 8 * (t + 1), MPI_BYTE, (rank + 1) % size, t, in, sizeof in, MPI_BYTE, /* SITE:sendrecv */
                     (rank + size - 1) % size, t, comms[t], MPI_STATUS_IGNORE);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "threads: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int t = 0; t < THREADS; t++) MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, work, (void *)(long)t);
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < THREADS; t++) MPI_Comm_free(&comms[t]);
    MPI_Finalize();
    return 0;
}
