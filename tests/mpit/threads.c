/* Several threads under MPI_THREAD_MULTIPLE, each with its own MPI_T
 * session, communicate and read concurrently; every session counts exactly
 * its own window, and a session started before the threads sees them all. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

enum { THREADS = 4, ROUNDS = 200 };

static int idx_sent;
static _Atomic int failures;

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg, n, x = id;
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h;
    MPI_Comm self = MPI_COMM_SELF;
    unsigned long long v, last = 0;
    if (MPI_T_pvar_session_create(&s) != MPI_SUCCESS ||
        MPI_T_pvar_handle_alloc(s, idx_sent, &self, &h, &n) != MPI_SUCCESS || n != 1 ||
        MPI_T_pvar_start(s, h) != MPI_SUCCESS) {
        failures++;
        return NULL;
    }
    for (int r = 0; r < ROUNDS; r++) {
        MPI_Sendrecv_replace(&x, 1, MPI_INT, 0, id, 0, id, MPI_COMM_SELF, MPI_STATUS_IGNORE);
        if (MPI_T_pvar_read(s, h, &v) != MPI_SUCCESS || v < last) failures++;
        last = v;
    }
    if (MPI_T_pvar_stop(s, h) != MPI_SUCCESS || MPI_T_pvar_read(s, h, &v) != MPI_SUCCESS ||
        v < ROUNDS || MPI_T_pvar_session_free(&s) != MPI_SUCCESS)
        failures++;
    return NULL;
}

static int t_threads(void)
{
    MPI_T_pvar_session all;
    MPI_T_pvar_handle h;
    MPI_Comm self = MPI_COMM_SELF;
    int n;
    unsigned long long v;
    CHECK_RC(MPI_T_pvar_get_index("mpiscope_p2p_messages_sent", MPI_T_PVAR_CLASS_COUNTER,
                                  &idx_sent),
             MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_session_create(&all), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_handle_alloc(all, idx_sent, &self, &h, &n), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_start(all, h), MPI_SUCCESS);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    CHECK(failures == 0);
    CHECK_RC(MPI_T_pvar_read(all, h, &v), MPI_SUCCESS);
    CHECK(v == (unsigned long long)THREADS * ROUNDS);
    CHECK_RC(MPI_T_pvar_session_free(&all), MPI_SUCCESS);
    return 0;
}

static const check_test_t tests[] = {{"threads/sessions_read_concurrently", t_threads}};

int main(int argc, char **argv)
{
    int provided, p;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &check_rank);
    if (provided < MPI_THREAD_MULTIPLE) {
        printf("MPI_THREAD_MULTIPLE not provided; skipped\n");
        MPI_Finalize();
        return 0;
    }
    if (MPI_T_init_thread(MPI_THREAD_MULTIPLE, &p) != MPI_SUCCESS) return 1;
    check_run(tests, 1);
    MPI_T_finalize();
    MPI_Finalize();
    return check_failures != 0;
}
