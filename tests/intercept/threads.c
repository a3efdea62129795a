/* MPI_THREAD_MULTIPLE: threads that call MPI at the same time are each
 * counted exactly, with no lost update and no deadlock; a level change
 * racing with calls in flight is never lost. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "harness.h"

enum { THREADS = 4, K = 200 };

static MPI_Comm comms[THREADS];

static void init_multiple(int *argc, char ***argv)
{
    int provided;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
        FAIL("MPI_Init_thread failed");
    PMPI_Comm_rank(MPI_COMM_WORLD, &msc_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &msc_size);
    if (provided != MPI_THREAD_MULTIPLE) FAIL("MPI_THREAD_MULTIPLE not provided (%d)", provided);
}

static void *worker(void *arg)
{
    int i = (int)(long)arg, r, p = msc_rank ^ 1;
    if (p >= msc_size) p = MPI_PROC_NULL;
    for (int k = 0; k < K; k++) {
        MPI_Comm_rank(comms[i], &r);
        int out = k * THREADS + i, in = -1;
        MPI_Sendrecv(&out, 1, MPI_INT, p, k, &in, 1, MPI_INT, p, k, comms[i], MPI_STATUS_IGNORE);
        if (p != MPI_PROC_NULL) CHECK_EQ(in, out);
    }
    MPI_Barrier(comms[i]);
    return NULL;
}

static void case_multiple(int argc, char **argv)
{
    init_multiple(&argc, &argv);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) MPI_Comm_dup(MPI_COMM_WORLD, &comms[i]);
    for (int i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, worker, (void *)(long)i);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    for (int i = 0; i < THREADS; i++) MPI_Comm_free(&comms[i]);
    CHECK_CALLS("MPI_Comm_dup", THREADS);
    CHECK_CALLS("MPI_Comm_rank", THREADS * K);
    CHECK_CALLS("MPI_Sendrecv", THREADS * K);
    CHECK_CALLS("MPI_Barrier", THREADS);
    CHECK_CALLS("MPI_Comm_free", THREADS);
    CHECK_CALLS("MPI_Init_thread", 1);
    CHECK_CALLS("MPI_Init", 0);
    MPI_Finalize();
}

/* Workers call MPI in a loop while the main thread turns recording off and
 * on; once it is on for good, every worker's next calls must be counted. The
 * toggling starts once every worker is calling, and goes on until each has
 * made many calls during it. */
static atomic_int stop;
static atomic_long progress[THREADS];
static pthread_barrier_t quiet;

static void *spinner(void *arg)
{
    int i = (int)(long)arg, r;
    while (!atomic_load(&stop)) {
        MPI_Comm_rank(MPI_COMM_SELF, &r);
        atomic_fetch_add(&progress[i], 1);
    }
    pthread_barrier_wait(&quiet);
    pthread_barrier_wait(&quiet);
    for (int k = 0; k < K; k++) MPI_Comm_rank(MPI_COMM_SELF, &r);
    return NULL;
}

/* Waits until every worker has made `n` more calls than `since`. */
static void wait_progress(const long *since, long n)
{
    for (int i = 0; i < THREADS; i++)
        while (atomic_load(&progress[i]) < since[i] + n) sched_yield();
}

static void case_pcontrol_race(int argc, char **argv)
{
    init_multiple(&argc, &argv);
    int toggles = argc > 1 ? atoi(argv[1]) : 20000;
    pthread_t t[THREADS];
    long zero[THREADS] = {0}, start[THREADS];
    pthread_barrier_init(&quiet, NULL, THREADS + 1);
    for (int i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, spinner, (void *)(long)i);
    wait_progress(zero, 1000);
    for (int i = 0; i < THREADS; i++) start[i] = atomic_load(&progress[i]);
    for (int i = 0; i < toggles; i++) {
        MPI_Pcontrol(0);
        MPI_Pcontrol(1);
    }
    MPI_Pcontrol(0);
    wait_progress(start, 1000); /* every worker saw recording off */
    MPI_Pcontrol(1);
    atomic_store(&stop, 1);
    pthread_barrier_wait(&quiet);
    long long before = calls("MPI_Comm_rank");
    pthread_barrier_wait(&quiet);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    CHECK_CALLS("MPI_Comm_rank", before + THREADS * K);
    pthread_barrier_destroy(&quiet);
    MPI_Finalize();
}

MSC_CASES_MAIN(CASE(multiple), CASE(pcontrol_race))
