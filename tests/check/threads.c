/* MPI_THREAD_MULTIPLE under check mode: 4 threads per rank, each on its own
 * duplicate of MPI_COMM_WORLD (made by the main thread, in the same order on
 * every rank), each exchanging batches of 16 MPI_Isend/MPI_Irecv with the
 * other ranks and MPI_Waitall, then an MPI_Allreduce, 20 rounds. A correct
 * program: it must finish with the right sums and no finding. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 4, BATCH = 16, ROUNDS = 20 };
static MPI_Comm comms[THREADS];
static int rank, size, bad;

static void *work(void *arg)
{
    int id = (int)(long)arg;
    MPI_Comm c = comms[id];
    int out[BATCH], in[BATCH];
    MPI_Request q[2 * BATCH];
    MPI_Status st[2 * BATCH];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < BATCH; i++) {
            out[i] = rank * 1000 + id * 100 + i;
            MPI_Irecv(&in[i], 1, MPI_INT, left, i, c, &q[i]);
            MPI_Isend(&out[i], 1, MPI_INT, right, i, c, &q[BATCH + i]);
        }
        MPI_Waitall(2 * BATCH, q, st);
        for (int i = 0; i < BATCH; i++)
            if (in[i] != left * 1000 + id * 100 + i) __atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
        int one = 1, sum = 0;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
        if (sum != size) __atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int t = 0; t < THREADS; t++) MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, work, (void *)(long)t);
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < THREADS; t++) MPI_Comm_free(&comms[t]);
    MPI_Finalize();
    return bad;
}
