/* requests: nonblocking operations whose request handles the MPI shares.
 *   requests shared [rounds]   2 ranks; per round 100 small MPI_Isend and
 *       100 MPI_Irecv to and from the other rank, then one MPI_Waitall of
 *       all 200. Small sends complete inline, and both MPIs then hand out
 *       one shared, already complete handle (Open MPI's
 *       ompi_request_empty, MPICH's lightweight requests), so the 100 send
 *       handles are mostly the same value.
 *   requests threads [rounds]  the same from 4 threads per rank
 *       (MPI_THREAD_MULTIPLE), each with its own tag, 25 sends and receives
 *       per round: the shared handle is posted and completed by several
 *       threads at once.
 * Every call is counted (expect.h) for check_trace.py, which then asserts
 * that each MpiIsend has exactly one MpiIsendComplete and each
 * MpiIrecvRequest one MpiIrecv on the same location, by request id. The
 * received values are checked too, so the program fails on its own if a
 * message goes astray.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"

enum { PER_ROUND = 100, THREADS = 4 };

static int rank, rounds = 20;
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;

/* expect.h's counter is not thread-safe: count under a lock. */
#define TC(fn, ...)                                                       \
    (pthread_mutex_lock(&count_lock), expect_count(#fn),                  \
     pthread_mutex_unlock(&count_lock), fn(__VA_ARGS__))

static void exchange(int tag, int n)
{
    int peer = 1 - rank;
    int *out = malloc((size_t)n * sizeof *out), *in = malloc((size_t)n * sizeof *in);
    MPI_Request *req = malloc(2 * (size_t)n * sizeof *req);
    MPI_Status *st = malloc(2 * (size_t)n * sizeof *st);
    CHECK(out && in && req && st);
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < n; i++) {
            in[i] = -1;
            TC(MPI_Irecv, &in[i], 1, MPI_INT, peer, tag, MPI_COMM_WORLD, &req[n + i]);
        }
        for (int i = 0; i < n; i++) {
            out[i] = rank * 1000000 + tag * 10000 + r * 100 + i;
            TC(MPI_Isend, &out[i], 1, MPI_INT, peer, tag, MPI_COMM_WORLD, &req[i]);
        }
        TC(MPI_Waitall, 2 * n, req, st);
        for (int i = 0; i < n; i++) CHECK(in[i] == peer * 1000000 + tag * 10000 + r * 100 + i);
    }
    free(out);
    free(in);
    free(req);
    free(st);
}

static void *worker(void *arg)
{
    exchange((int)(intptr_t)arg, PER_ROUND / THREADS);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "shared";
    if (argc > 2) rounds = atoi(argv[2]);
    bool threads = strcmp(mode, "threads") == 0;
    int provided = MPI_THREAD_SINGLE;
    if (threads) {
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        CHECK(provided == MPI_THREAD_MULTIPLE);
    } else {
        MPI_Init(&argc, &argv);
    }
    int size;
    C(MPI_Comm_rank, MPI_COMM_WORLD, &rank);
    C(MPI_Comm_size, MPI_COMM_WORLD, &size);
    CHECK(size == 2);
    if (threads) {
        pthread_t t[THREADS];
        for (int i = 0; i < THREADS; i++)
            CHECK(pthread_create(&t[i], NULL, worker, (void *)(intptr_t)(i + 1)) == 0);
        for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    } else {
        exchange(0, PER_ROUND);
    }
    C(MPI_Barrier, MPI_COMM_WORLD);
    expect_write(rank);
    MPI_Finalize();
    return 0;
}
